import { parse, type ParsedUrlQuery } from 'node:querystring';

/**
 * Express's `query parser`: `node:querystring`, like Express's own 'simple' parser, with one difference.
 * Percent-encoded bytes that are not UTF-8 are not replaced by U+FFFD, which would let `%ED%A0%80` (a lone
 * surrogate, encoded) or `%FF` pass as ordinary text: each such byte becomes the lone surrogate U+DC80..U+DCFF
 * (Python's `surrogateescape`), so the contract's rule for written text refuses the parameter by name. A
 * malformed escape (`%zz`) stays as written, as before.
 */
export function parseQueryString(query: string): ParsedUrlQuery {
  return parse(query, '&', '=', { decodeURIComponent: decodeQueryComponent });
}

function decodeQueryComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return decodeUtf8EscapingErrors(percentDecodedBytes(text));
  }
}

const hexDigit = /^[0-9A-Fa-f]{2}$/;

/** The bytes a component stands for: `%XX` escapes as bytes, everything else as its UTF-8. */
function percentDecodedBytes(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length;) {
    const escape = text.slice(i + 1, i + 3);
    if (text[i] === '%' && hexDigit.test(escape)) {
      bytes.push(Number.parseInt(escape, 16));
      i += 3;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(i)!);
    bytes.push(...Buffer.from(char, 'utf8'));
    i += char.length;
  }
  return Uint8Array.from(bytes);
}

/**
 * UTF-8 decoding where each byte that does not belong to a well-formed sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF) becomes U+DC00 + the byte. Only invalid bytes of 0x80 and above
 * exist, so the result holds U+DC80..U+DCFF exactly where the input was not UTF-8: always lone, since a
 * well-formed sequence never leaves a high surrogate before them.
 */
function decodeUtf8EscapingErrors(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i]!;
    const [length, smallest] =
      lead < 0x80 ? [1, 0] : lead < 0xc2 ? [0, 0] : lead < 0xe0 ? [2, 0x80] : lead < 0xf0 ? [3, 0x800] : [4, 0x10000];
    let code = length === 1 ? lead : lead & (0xff >> (length + 1));
    let valid = length > 0 && lead <= 0xf4 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) {
      const next = bytes[i + k]!;
      valid = (next & 0xc0) === 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    valid &&= code >= smallest && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    if (valid) {
      text += String.fromCodePoint(code);
      i += length;
    } else {
      text += String.fromCharCode(0xdc00 + lead);
      i += 1;
    }
  }
  return text;
}

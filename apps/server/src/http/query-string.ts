import { parse, type ParsedUrlQuery } from 'node:querystring';
import { HttpProblem } from '../kernel/http-problem.js';

/**
 * The parameters of each parsed query whose name or value was not valid percent-encoding: only such queries
 * are entered, a few among many.
 */
const malformedParameters = new WeakMap<object, string[]>();

/**
 * Express's `query parser` (and the fast path's): `node:querystring`, like Express's own 'simple' parser, with
 * two differences.
 * - Percent-encoded bytes that are not UTF-8 are not replaced by U+FFFD, which would let `%ED%A0%80` (a lone
 *   surrogate, encoded) or `%FF` pass as ordinary text: each such byte becomes the lone surrogate
 *   U+DC80..U+DCFF (Python's `surrogateescape`), so the contract's rule for written text refuses the parameter
 *   by name.
 * - A malformed escape (`q=%zz`, `genres=%`) is remembered with the query (`malformedQueryProblem`), so the
 *   request is a 400 naming the parameter instead of a search for the text `%zz`.
 */
export function parseQueryString(query: string | null): ParsedUrlQuery {
  // Express hands over null for a URL without `?`.
  const text = query ?? '';
  const parsed = parse(text, '&', '=', { decodeURIComponent: decodeQueryComponent });
  // Nearly every query holds no `%` at all, or only well-formed escapes: one scan, and nothing more.
  if (text.includes('%') && !isWellEncoded(text)) malformedParameters.set(parsed, malformedNames(text));
  return parsed;
}

/** The parameters (decoded names) whose name or value holds a malformed escape. */
function malformedNames(query: string): string[] {
  const names = new Set<string>();
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    const name = at === -1 ? pair : pair.slice(0, at);
    if (isWellEncoded(pair)) continue;
    names.add(decodeQueryComponent(name.replace(/\+/g, ' ')));
  }
  return [...names];
}

/**
 * The 400 for a query whose percent-encoding is malformed, naming each parameter concerned; undefined for a
 * query that decoded cleanly.
 */
export function malformedQueryProblem(query: object): HttpProblem | undefined {
  const names = malformedParameters.get(query);
  if (names === undefined || names.length === 0) return undefined;
  const errors = names.map((parameter) => ({ parameter, detail: 'is not valid percent-encoding' }));
  const detail =
    errors.length === 1
      ? `${names[0]} is not valid percent-encoding: encode % as %25.`
      : `${errors.length} parameters are not valid percent-encoding (${names.join(', ')}): encode % as %25.`;
  return new HttpProblem('invalid-request', detail, { errors });
}

/** A component as decoded: a malformed escape stays as written, bytes that are not UTF-8 are escaped. */
function decodeQueryComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return decodeUtf8EscapingErrors(percentDecodedBytes(text));
  }
}

/** Whether every `%` in `text` starts an escape of two hex digits. */
function isWellEncoded(text: string): boolean {
  return !/%(?![0-9A-Fa-f]{2})/.test(text);
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

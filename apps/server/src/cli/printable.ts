/**
 * What the CLI writes to a terminal. Values come from the database (key names, emails), from files and from
 * the command line, and rows written before the contract refused control characters may still hold them: an
 * ESC sequence in a key name could retitle the terminal, erase a line or recolour `active` as `revoked`, a
 * newline could forge a row, a bidirectional override could reorder one. So every value is printed escaped,
 * visibly: C0 controls, DEL and C1 controls as `\xHH` (`\n`, `\r`, `\t` as such), bidirectional controls,
 * line and paragraph separators and lone surrogates as `\uHHHH`, and the backslash itself as `\\`, so an
 * escape is never ambiguous with text that looks like one.
 */

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const unprintable = /[\u0000-\u001f\u007f-\u009f\\\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\p{Cs}/gu;

const shortEscapes: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

function escapeOne(char: string): string {
  const short = shortEscapes[char];
  if (short !== undefined) return short;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One value as it may reach a terminal. */
function printable(value: string): string {
  return value.replace(unprintable, escapeOne);
}

declare const printableText: unique symbol;
/** Text for the terminal whose every value went through `printable`: made by `text` and `joinText` only. */
export type PrintableText = string & { readonly [printableText]: true };

/**
 * A template for terminal output: `text\`Created ${id} (${name}).\`` escapes each value and keeps the
 * template's own characters (its newlines are the command's, not a value's).
 */
export function text(template: TemplateStringsArray, ...values: ReadonlyArray<string | number>): PrintableText {
  let out = template[0] ?? '';
  values.forEach((value, index) => {
    out += printable(String(value)) + (template[index + 1] ?? '');
  });
  return out as PrintableText;
}

/** Pieces of terminal output, one after another (`separator` is the command's own text, not a value). */
export function joinText(parts: readonly PrintableText[], separator: '' | '\n' = ''): PrintableText {
  return parts.join(separator) as PrintableText;
}

/**
 * Text whose lines come from elsewhere (an error's message): each line escaped, the line breaks kept. For
 * messages this process composed, whose values are not forged lines.
 */
export function printableLines(value: string): PrintableText {
  return joinText(
    value.split('\n').map((line) => printable(line) as PrintableText),
    '\n',
  );
}

// `JSON.stringify` escapes C0 controls and lone surrogates; these it writes as they are.
const unescapedByJson = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** JSON with the characters a terminal would act on written as `\uHHHH` escapes: the same JSON value. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    unescapedByJson,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The rule for text a person writes (SPEC §3.7): emails, API key names, filter values, `q`, and the text of
 * imported releases. Such text never holds
 * - NUL or any other C0 control (U+0000..U+001F), DEL or a C1 control (U+007F..U+009F): invisible, they can
 *   rewrite an operator's terminal (ESC, CSI) or a log line, and PostgreSQL refuses NUL in text outright;
 * - a lone surrogate: not Unicode at all, so no UTF-8 database, log or terminal can hold it faithfully;
 * - a bidirectional embedding, override or isolate (U+202A..U+202E, U+2066..U+2069): they reorder what
 *   follows them on screen, so a name can display as something it is not.
 * The marks U+200E, U+200F and U+061C stay allowed: right-to-left scripts need them, and they reorder nothing
 * beyond themselves.
 *
 * Passwords are set aside (the SPEC says so): they are never shown, stored or compared as text (only their
 * scrypt hash is kept), and refusing characters would only refuse some generated passwords. New passwords
 * must still be Unicode (`unicodeTextProblem`), since a lone surrogate would reach the hash as U+FFFD.
 *
 * Plain functions, no schema library: the zod schemas (`writtenText`) and any client share them.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point of this rule
const notWrittenText = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;
const loneSurrogate = /\p{Cs}/u;

/** `U+001B`: how a code point is named in messages. */
function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function located(value: string, index: number): string {
  // Counted in characters (code points) from 1, as a person counts them.
  return `${codePointName(value.codePointAt(index)!)} at character ${[...value.slice(0, index)].length + 1}`;
}

const surrogateProblem = 'must be Unicode text (it holds a lone surrogate)';

/** Why `value` is not text a person may write here, or undefined when it is. */
export function writtenTextProblem(value: string): string | undefined {
  const match = notWrittenText.exec(value);
  if (match === null) return undefined;
  const code = match[0].codePointAt(0)!;
  const where = located(value, match.index);
  if (code === 0) return `must not contain NUL characters: ${where}`;
  if (code <= 0x9f) return `must not contain control characters: ${where}`;
  if (code >= 0xd800 && code <= 0xdfff) return `${surrogateProblem}: ${where}`;
  return `must not contain bidirectional override or isolate characters: ${where}`;
}

/** Why `value` is not Unicode text (a lone surrogate), or undefined when it is. */
export function unicodeTextProblem(value: string): string | undefined {
  const match = loneSurrogate.exec(value);
  return match === null ? undefined : `${surrogateProblem}: ${located(value, match.index)}`;
}

/**
 * When to retry, and how long to wait first (SPEC §8): idempotent requests only, after network failures,
 * timeouts, 408, 429, 502, 503 and 504 (and a GET after a 500, decided in the client); the server's `Retry-After` when it gives a readable one (up to 60 s),
 * else exponential backoff with full jitter. Pure functions of their inputs, `random` included, so the
 * policy is testable without waiting.
 */

/** A `Retry-After` longer than this is not waited for: the error is thrown at once ("not now"). */
export const maxRetryAfterMs = 60_000;
/** Methods that can be sent twice with the effect of once (RFC 9110 §9.2.2): only these are retried. */
export const idempotentMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Statuses that say "try again": a timeout, a rate limit, or a gateway or dependency down. */
export const retryableStatuses: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

export interface Backoff {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Full jitter (the AWS architecture blog's "Exponential Backoff And Jitter"): uniform in [0, ceiling). */
export function backoffDelayMs(attempt: number, backoff: Backoff, random: number): number {
  return random * Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** attempt);
}

/**
 * The wait for a server-given `Retry-After`: never less than asked, plus a random share of 250 ms + 10 % of
 * it, so the many clients one 429 turned away do not all come back in the same instant; never more than the
 * 60 s the client honours at most, jitter included.
 */
export function retryAfterDelayMs(requestedMs: number, random: number): number {
  const jitterWindow = Math.min(250 + requestedMs / 10, Math.max(0, maxRetryAfterMs - requestedMs));
  return requestedMs + random * jitterWindow;
}

const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].join('|');
const longDays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].join('|');
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const months = monthNames.join('|');
const time = '(\\d{2}):(\\d{2}):(\\d{2})';
// The three forms of RFC 9110 §5.6.7, case-sensitive as it says; groups: day, month, year, h, m, s.
const imfFixdate = new RegExp(`^(?:${days}), (\\d{2}) (${months}) (\\d{4}) ${time} GMT$`);
const rfc850Date = new RegExp(`^(?:${longDays}), (\\d{2})-(${months})-(\\d{2}) ${time} GMT$`);
const asctimeDate = new RegExp(`^(?:${days}) (${months}) ([ \\d]\\d) ${time} (\\d{4})$`);

function utc(year: number, month: string, day: number, hours: number, minutes: number, seconds: number) {
  const monthIndex = monthNames.indexOf(month);
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
  const value = Date.UTC(year, monthIndex, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls 31 February over into March; an HTTP-date that names no real day is invalid.
  const date = new Date(value);
  return date.getUTCFullYear() === year && date.getUTCMonth() === monthIndex && date.getUTCDate() === day
    ? value
    : undefined;
}

/**
 * An HTTP-date (RFC 9110 §5.6.7) in milliseconds since the epoch, or undefined. Unlike `Date.parse`, which
 * reads almost anything (it takes `1.5` for a day in 2001), only the three forms HTTP defines are read.
 * `now` places a two-digit RFC 850 year: one more than 50 years ahead means the century before.
 */
function parseHttpDate(value: string, now: number): number | undefined {
  let match = imfFixdate.exec(value);
  if (match) return utc(Number(match[3]), match[2]!, Number(match[1]), +match[4]!, +match[5]!, +match[6]!);
  match = rfc850Date.exec(value);
  if (match) {
    const currentYear = new Date(now).getUTCFullYear();
    let year = Math.floor(currentYear / 100) * 100 + Number(match[3]);
    if (year > currentYear + 50) year -= 100;
    return utc(year, match[2]!, Number(match[1]), +match[4]!, +match[5]!, +match[6]!);
  }
  match = asctimeDate.exec(value);
  if (match) return utc(Number(match[6]), match[1]!, Number(match[2]!.trim()), +match[3]!, +match[4]!, +match[5]!);
  return undefined;
}

/**
 * `Retry-After` in milliseconds, or undefined when absent or unreadable (the caller then backs off as if
 * there were none). RFC 9110 §10.2.3 allows delta-seconds (digits only: `1.5`, `-1` and `1e3` are not
 * valid and are ignored rather than guessed at) or an HTTP-date, measured from the response's own `Date`
 * so a skewed local clock neither stretches nor cuts the wait. A date in the past means now.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const sent = headers.get('date');
  const reference = (sent === null ? undefined : parseHttpDate(sent.trim(), now)) ?? now;
  const at = parseHttpDate(value, reference);
  return at === undefined ? undefined : Math.max(0, at - reference);
}

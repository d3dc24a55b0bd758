/**
 * The messages `fetch` implementations give a `TypeError` when the network failed (no HTTP answer): DNS,
 * refused or reset connections, TLS, a body cut short. Anything else a `fetch` throws (a bug, a bad argument,
 * "Illegal invocation") is not a network failure and must not be retried as one. Same list as the
 * `is-network-error` package, which tracks the runtimes.
 */
const networkMessages = new Set([
  'network error', // Chrome
  'Failed to fetch', // Chrome
  'NetworkError when attempting to fetch resource.', // Firefox
  'The Internet connection appears to be offline.', // Safari 16
  'Network request failed', // cross-fetch, React Native
  'fetch failed', // Node (undici) and Deno 2, before any response
  'terminated', // Node (undici), while reading a body
  'error reading a body from connection', // Deno 2, while reading a body
  ' A network error occurred.', // Bun (WebKit)
  'Network connection lost.', // Cloudflare Workers
  'Network connection lost', // Cloudflare Workers, older
]);

/**
 * Socket errors on an error's `code`: as Bun puts them on its `TypeError` (measured with Bun 1.4:
 * `ECONNREFUSED: Unable to connect...`, `ECONNRESET: The socket connection was closed unexpectedly...`), the
 * names older Bun releases used, and Node's own (a fetch built on `node:http`, such as node-fetch).
 */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
]);

/**
 * Whether `error`, thrown by a `fetch` passed in as an option, is a network failure (retryable as a
 * `ConnectionError`) rather than a bug. The default fetch needs no such guess: every rejection of it that
 * is not an abort is a network failure.
 */
export function isNetworkError(error: unknown): boolean {
  // By name, not instanceof: a fetch from another realm (an iframe, a VM context) throws its own TypeError.
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, stack, code } = error as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    code?: unknown;
  };
  if (typeof message !== 'string') return false;
  if (typeof code === 'string' && networkCodes.has(code)) return true;
  // workerd (and wrangler dev) throw a plain Error, not a TypeError, for every failed subrequest.
  if (name === 'Error') return message === 'Network connection lost.';
  if (name !== 'TypeError') return false;
  // Safari 17+ says "Load failed" for network failures, with no stack; a thrown "Load failed" has one.
  if (message === 'Load failed') return stack === undefined;
  // Deno 1: "error sending request for url (...): <cause>".
  if (message.startsWith('error sending request for url')) return true;
  return networkMessages.has(message);
}

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
  'fetch failed', // Node (undici), before any response
  'terminated', // Node (undici), while reading a body
  ' A network error occurred.', // Bun (WebKit)
  'Network connection lost.', // Cloudflare Workers
  'Network connection lost', // Cloudflare Workers, older
]);

/** Whether `error` is a `fetch` network failure (retryable as a `ConnectionError`) rather than a bug. */
export function isNetworkError(error: unknown): boolean {
  // By name, not instanceof: a fetch from another realm (an iframe, a VM context) throws its own TypeError.
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, stack } = error as { name?: unknown; message?: unknown; stack?: unknown };
  if (name !== 'TypeError' || typeof message !== 'string') return false;
  // Safari 17+ says "Load failed" for network failures, with no stack; a thrown "Load failed" has one.
  if (message === 'Load failed') return stack === undefined;
  // Deno: "error sending request for url (...): <cause>".
  if (message.startsWith('error sending request for url')) return true;
  return networkMessages.has(message);
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorFromResponse } from '../src/errors.js';
import { ConnectionError, ReleasesClient, type Logger, type RateLimitError } from '../src/index.js';
import { isNetworkError } from '../src/network-error.js';
import { maxRetryAfterMs, retryAfterDelayMs } from '../src/retry.js';
import { freePort } from './server-harness.js';
import { emptyFacets, scriptedServer, sendJson, sendProblem, type ScriptedServer } from './scripted-server.js';

let api: ScriptedServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await api?.close();
  api = undefined;
});

const fast = { retryBackoff: { baseDelayMs: 5, maxDelayMs: 20 } };

describe('only network failures are retried (issue 8 #7)', () => {
  it.each([
    new TypeError("Cannot read properties of undefined (reading 'headers')"),
    new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation"),
    new RangeError('Invalid array length'),
  ])('%s from fetch is thrown as it is, once', async (thrown) => {
    let calls = 0;
    const client = new ReleasesClient({
      baseUrl: 'http://127.0.0.1:9',
      maxRetries: 3,
      ...fast,
      fetch: () => {
        calls++;
        throw thrown;
      },
    });
    const error = await client.facets.list().catch((e: unknown) => e);
    expect(error).toBe(thrown);
    expect(calls).toBe(1);
  });

  it('a refused connection is a ConnectionError, retried', async () => {
    let calls = 0;
    const port = await freePort();
    const client = new ReleasesClient({
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 2,
      ...fast,
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    const error = await client.facets.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls).toBe(3);
  });

  it('a connection cut while the body is read is a ConnectionError, retried', async () => {
    api = await scriptedServer((request, res, attempt) => {
      if (attempt > 1) return sendJson(res, 200, emptyFacets);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"success":', () => res.destroy());
    });
    expect(await new ReleasesClient({ baseUrl: api.baseUrl, ...fast }).facets.list()).toEqual(emptyFacets.data);
    expect(api.requests).toHaveLength(2);
  });

  it.each([
    ['Chrome', 'Failed to fetch'],
    ['Firefox', 'NetworkError when attempting to fetch resource.'],
    ['Safari', 'Load failed'],
    ['Node (undici)', 'fetch failed'],
    ['Node (undici, body)', 'terminated'],
    ['Deno', 'error sending request for url (http://x/): connection refused'],
    ['Cloudflare Workers', 'Network connection lost.'],
  ])('recognises the network TypeError of %s', (_runtime, message) => {
    const error = new TypeError(message);
    // Safari's network errors carry no stack; a "Load failed" with a stack is thrown by code, not the network.
    if (message === 'Load failed') delete (error as { stack?: string }).stack;
    expect(isNetworkError(error)).toBe(true);
  });

  it.each([new TypeError('x is not a function'), new Error('Failed to fetch'), 'Failed to fetch', undefined])(
    'does not take %s for a network failure',
    (value) => {
      expect(isNetworkError(value)).toBe(false);
    },
  );
});

describe('Retry-After (issue 8 #8)', () => {
  const readRetryAfter = (value: string, extra: Record<string, string> = {}) =>
    (
      errorFromResponse(
        429,
        new Headers({ 'retry-after': value, ...extra }),
        { title: 't', status: 429, detail: 'd' },
        '',
      ) as RateLimitError
    ).retryAfterMs;

  it('reads delta-seconds (RFC 9110: digits only)', () => {
    expect(readRetryAfter('0')).toBe(0);
    expect(readRetryAfter('7')).toBe(7000);
    expect(readRetryAfter(' 120 ')).toBe(120_000);
  });

  it.each(['1.5', '-1', '+5', '1e3', '0x10', '5 s', 'soon', '', '2026-11-22T08:00:00Z', 'Sun, 06 Nov 1994'])(
    'ignores %j (not a delta-seconds or an HTTP-date)',
    (value) => {
      expect(readRetryAfter(value)).toBeUndefined();
    },
  );

  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:50:07 GMT'],
    ['obsolete RFC 850 date', 'Sunday, 06-Nov-94 08:50:07 GMT'],
    ['obsolete asctime date', 'Sun Nov  6 08:50:07 1994'],
  ])('reads an %s, measured from the response Date (not the local clock)', (_form, value) => {
    expect(readRetryAfter(value, { date: 'Sun, 06 Nov 1994 08:49:37 GMT' })).toBe(30_000);
  });

  it('an HTTP-date in the past means now; a wrong zone or case is ignored', () => {
    expect(readRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
    expect(readRetryAfter('Sun, 06 Nov 1994 08:49:37 UTC')).toBeUndefined();
    expect(readRetryAfter('sun, 06 nov 1994 08:49:37 gmt')).toBeUndefined();
    expect(readRetryAfter('Sun, 31 Feb 1994 08:49:37 GMT')).toBeUndefined();
  });

  /** The delay the client chose, from its own retry log line. */
  async function loggedDelay(retryAfter: string, random: number): Promise<number> {
    api = await scriptedServer((_request, res, attempt) =>
      attempt === 1
        ? sendProblem(res, 503, 'service-unavailable', { 'retry-after': retryAfter })
        : sendJson(res, 200, emptyFacets),
    );
    vi.spyOn(Math, 'random').mockReturnValue(random);
    const lines: string[] = [];
    const logger: Logger = { error: () => {}, warn: () => {}, debug: () => {}, info: (line) => lines.push(line) };
    const client = new ReleasesClient({
      baseUrl: api.baseUrl,
      logger,
      logLevel: 'info',
      retryBackoff: { baseDelayMs: 40, maxDelayMs: 40 },
    });
    await client.facets.list();
    const delay = /in (\d+) ms/.exec(lines[0] ?? '')?.[1];
    expect(delay).toBeDefined();
    return Number(delay);
  }

  it('an unreadable Retry-After (1.5) falls back to the backoff instead of retrying at once', async () => {
    expect(await loggedDelay('1.5', 0.5)).toBe(20); // half of the 40 ms backoff ceiling
  });

  it('adds jitter on top of Retry-After, so clients released by one 429 do not return together', async () => {
    expect(await loggedDelay('0', 0.5)).toBe(125); // 0 s asked, plus half of the 250 ms jitter window
  });

  it('never retries before the time the server asked for', async () => {
    expect(await loggedDelay('1', 0)).toBe(1000);
  });

  it('honours Retry-After up to 60 s with its jitter, never past it', () => {
    expect(retryAfterDelayMs(maxRetryAfterMs, 0.99)).toBe(maxRetryAfterMs);
    expect(retryAfterDelayMs(59_000, 0.99)).toBeLessThanOrEqual(maxRetryAfterMs);
    expect(retryAfterDelayMs(59_000, 0.99)).toBeGreaterThan(59_000);
    expect(retryAfterDelayMs(10_000, 1)).toBe(11_250);
  });
});

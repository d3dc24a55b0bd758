import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError, ReleasesClient, TimeoutError } from '../src/index.js';
import { isNetworkError } from '../src/network-error.js';
import { emptyFacets } from './scripted-server.js';

/**
 * How runtimes other than Node report a failed request (issue 19 #1), as measured with the runtimes'
 * own binaries (the runtime matrix runs the real ones): each shape, thrown by the default fetch, must be a
 * `ConnectionError` and retried like one.
 */
afterEach(() => {
  vi.unstubAllGlobals();
});

const fast = { retryBackoff: { baseDelayMs: 1, maxDelayMs: 2 } };
const baseUrl = 'http://127.0.0.1:9';

/** Bun 1.4: a TypeError whose `code` names the socket error, and a message of its own. */
function bunError(code: 'ECONNREFUSED' | 'ECONNRESET'): TypeError {
  const message =
    code === 'ECONNREFUSED'
      ? 'ECONNREFUSED: Unable to connect. Is the computer able to access the url?'
      : 'ECONNRESET: The socket connection was closed unexpectedly. For more information, pass `verbose: true` in the second argument to fetch()';
  return Object.assign(new TypeError(message), { code });
}

const shapes: [string, () => unknown][] = [
  ['Bun, refused', () => bunError('ECONNREFUSED')],
  ['Bun, reset', () => bunError('ECONNRESET')],
  // workerd and wrangler dev: a plain Error, not a TypeError.
  ['workerd', () => new Error('Network connection lost.')],
  ['Deno, refused', () => new TypeError('fetch failed', { cause: new Error('tcp connect error') })],
  ['an error no runtime is known to throw', () => new Error('something else went wrong')],
  ['a thrown non-Error', () => 'a string'],
];

/** A default fetch (the global one) that fails `failures` times with `error`, then answers. */
function failingGlobalFetch(failures: number, error: () => unknown): { calls: () => number } {
  let calls = 0;
  vi.stubGlobal('fetch', async () => {
    calls++;
    if (calls <= failures) throw error();
    return new Response(JSON.stringify(emptyFacets), { headers: { 'content-type': 'application/json' } });
  });
  return { calls: () => calls };
}

describe('any rejection of the default fetch that is not an abort is a ConnectionError (SPEC §8)', () => {
  it.each(shapes)('%s: ConnectionError after its retries, with the cause kept', async (_runtime, error) => {
    const fetch = failingGlobalFetch(Number.POSITIVE_INFINITY, error);
    const thrown = await new ReleasesClient({ baseUrl, maxRetries: 2, ...fast }).facets.list().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConnectionError);
    expect(thrown).not.toBeInstanceOf(TimeoutError);
    expect((thrown as ConnectionError).cause).toEqual(error());
    expect(fetch.calls()).toBe(3);
  });

  it.each(shapes)('%s: retried, and the retry succeeds', async (_runtime, error) => {
    const fetch = failingGlobalFetch(1, error);
    expect(await new ReleasesClient({ baseUrl, ...fast }).facets.list()).toEqual(emptyFacets.data);
    expect(fetch.calls()).toBe(2);
  });

  it('a POST is not retried (it may have happened), but still fails as a ConnectionError', async () => {
    const fetch = failingGlobalFetch(Number.POSITIVE_INFINITY, () => new Error('Network connection lost.'));
    const client = new ReleasesClient({ baseUrl, ...fast });
    const thrown = await client.auth.login({ email: 'a@example.com', password: 'x' }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConnectionError);
    expect(fetch.calls()).toBe(1);
  });

  it("the caller's abort still rejects with the signal's reason, whatever the fetch throws", async () => {
    const controller = new AbortController();
    const reason = new Error('navigated away');
    vi.stubGlobal('fetch', () => {
      controller.abort(reason);
      return Promise.reject(new Error('Network connection lost.'));
    });
    const thrown = await new ReleasesClient({ baseUrl, ...fast }).facets
      .list({}, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(thrown).toBe(reason);
  });
});

/** A 200 whose body stream fails after its first bytes, as each runtime reports it. */
function cutBody(error: unknown): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(error);
      sent = true;
      controller.enqueue(new TextEncoder().encode('{"success":'));
    },
  });
  return new Response(body, { headers: { 'content-type': 'application/json' } });
}

describe('a body cut while it is read is a ConnectionError, retried', () => {
  it.each([
    ['Deno', new TypeError('error reading a body from connection')],
    ['Bun', bunError('ECONNRESET')],
    ['workerd', new Error('Network connection lost.')],
  ])('%s', async (_runtime, error) => {
    let calls = 0;
    vi.stubGlobal('fetch', async () => {
      calls++;
      return calls === 1 ? cutBody(error) : new Response(JSON.stringify(emptyFacets));
    });
    expect(await new ReleasesClient({ baseUrl, ...fast }).facets.list()).toEqual(emptyFacets.data);
    expect(calls).toBe(2);
  });
});

describe('a fetch passed in: its network failures are recognised in every runtime (it may wrap theirs)', () => {
  it.each([
    ['Bun, refused', bunError('ECONNREFUSED')],
    ['Bun, reset', bunError('ECONNRESET')],
    ['workerd', new Error('Network connection lost.')],
    ['Deno, sending', new TypeError('fetch failed')],
    ['Deno, a body cut short', new TypeError('error reading a body from connection')],
  ])('%s is a network failure', (_runtime, error) => {
    expect(isNetworkError(error)).toBe(true);
  });

  it.each([new Error('Network connection lost'), new RangeError('ECONNRESET'), { code: 'ECONNRESET' }])(
    'but not %s (a bug, or not an error): thrown as it is',
    (value) => {
      expect(isNetworkError(value)).toBe(false);
    },
  );

  it('and with the body read too', async () => {
    let calls = 0;
    const client = new ReleasesClient({
      baseUrl,
      ...fast,
      fetch: async () => {
        calls++;
        return calls === 1
          ? cutBody(new TypeError('error reading a body from connection'))
          : new Response(JSON.stringify(emptyFacets));
      },
    });
    expect(await client.facets.list()).toEqual(emptyFacets.data);
    expect(calls).toBe(2);
  });

  it('a logger that throws is a bug of its own, never taken for the network', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(emptyFacets)));
    const broken = new Error('logger is broken');
    const client = new ReleasesClient({
      baseUrl,
      logLevel: 'debug',
      logger: {
        error: () => {},
        warn: () => {},
        info: () => {},
        debug: () => {
          throw broken;
        },
      },
    });
    await expect(client.facets.list()).rejects.toBe(broken);
  });
});

describe('a connection error says where the request went', () => {
  it('names the address tried and the socket’s code, without the query', async () => {
    // Node's own fetch against a port nothing listens on: what a user with a wrong RELEASES_BASE_URL meets.
    const server = await import('node:net').then(({ createServer }) => createServer());
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
    await new Promise((resolve) => server.close(resolve));
    const client = new ReleasesClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const thrown = await client.releases.list({ genres: ['rock'] }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ConnectionError);
    expect((thrown as Error).message).toBe(
      `GET http://127.0.0.1:${port}/api/v1/release failed: fetch failed (ECONNREFUSED)`,
    );
  });
});

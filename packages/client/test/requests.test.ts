import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReleasesClient, ReleasesError, VERSION } from '../src/index.js';
import { emptyFacets, scriptedServer, sendJson, type ScriptedServer } from './scripted-server.js';

/** What goes on the wire: paths, headers, credentials. Each test runs against a scripted loopback server. */
let api: ScriptedServer | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await api?.close();
  api = undefined;
});

async function facetsServer(): Promise<ScriptedServer> {
  api = await scriptedServer((_request, res) => sendJson(res, 200, emptyFacets));
  return api;
}

describe('the default fetch (issue 8 #1)', () => {
  /** Browsers and Workers refuse a `fetch` called with any `this` but the global object (or none). */
  function browserLikeFetch(): typeof fetch {
    const realFetch = globalThis.fetch;
    return function fetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) {
        throw new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation");
      }
      return realFetch(input, init);
    };
  }

  it('is called as a plain function, as browsers and Workers require', async () => {
    const server = await facetsServer();
    vi.stubGlobal('fetch', browserLikeFetch());
    const client = new ReleasesClient({ baseUrl: server.baseUrl, maxRetries: 0 });
    expect(await client.facets.list()).toEqual(emptyFacets.data);
  });

  it('a fetch passed in unbound (window.fetch) works too', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, maxRetries: 0, fetch: browserLikeFetch() });
    expect(await client.facets.list()).toEqual(emptyFacets.data);
  });

  it('is looked up at call time, so a fetch installed after the client was made (a test mock) is used', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, maxRetries: 0 });
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return realFetch(input, init);
    });
    await client.facets.list();
    expect(seen).toEqual([`${server.baseUrl}/api/v1/facets`]);
  });
});

describe('search and facets in context (issue 17 #6)', () => {
  it('sends q and sort=relevance with the list, and the filters and q with the facets', async () => {
    const seen: string[] = [];
    api = await scriptedServer((request, res) => {
      seen.push(request.url ?? '');
      if (request.url?.startsWith('/api/v1/facets')) return sendJson(res, 200, emptyFacets);
      return sendJson(res, 200, {
        success: true,
        data: { releases: [], pagination: '', generated_at: '2026-11-22T08:00:00.000Z' },
      });
    });
    const client = new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 0 });
    await client.releases.list({ q: 'ハッピー synth', sort: 'relevance', genres: ['rock'] });
    const facets = await client.facets.list({ vocaloid_banks: ['KAFU'], q: 'melt' });
    expect(facets.total).toBe(0);
    expect(seen.map((url) => Object.fromEntries(new URL(url, api!.baseUrl).searchParams))).toEqual([
      { genres: 'rock', q: 'ハッピー synth', sort: 'relevance' },
      { vocaloid_banks: 'KAFU', q: 'melt' },
    ]);
  });

  it('refuses a q that is not a string before any request', async () => {
    const client = new ReleasesClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    await expect(client.facets.list({ q: 42 as unknown as string })).rejects.toThrow(ReleasesError);
    await expect(client.releases.list({ q: 42 as unknown as string })).rejects.toThrow(ReleasesError);
  });

  it('says so when request options are passed where the query goes (facets.list took only options before)', async () => {
    const client = new ReleasesClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const options = { signal: new AbortController().signal } as unknown as Record<string, never>;
    await expect(client.facets.list(options)).rejects.toThrow(/signal is a request option/);
  });
});

describe('resource ids (issue 8 #3)', () => {
  it.each(['', '.', '..'])('refuses the id %j before any request', async (id) => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const error = await client.releases.get(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReleasesError);
    expect((error as Error).message).toMatch(/id/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an id that is not a string (JavaScript callers) before any request', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    await expect(client.releases.get(undefined as unknown as string)).rejects.toBeInstanceOf(ReleasesError);
    expect(server.requests).toHaveLength(0);
  });

  it('path-encodes an id: it stays one path segment', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    await client.releases.get('a/b?c#d %..');
    expect(server.requests[0]!.url).toBe('/api/v1/release/a%2Fb%3Fc%23d%20%25..');
  });
});

describe('header merging (issue 8 #4)', () => {
  it('a per-call header replaces a client header of the same name, whatever its case', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, headers: { 'X-Trace': 'client' } });
    await client.facets.list({}, { headers: { 'x-trace': 'call' } });
    expect(server.requests[0]!.headers['x-trace']).toBe('call');
  });

  it('a per-call x-api-key replaces the client key instead of sending two', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: 'rls_client' });
    await client.facets.list({}, { headers: { 'X-API-Key': 'rls_call' } });
    expect(server.requests[0]!.headers['x-api-key']).toBe('rls_call');
  });

  it('the same name spelled twice in one set: the last wins', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, headers: { 'x-a': '1', 'X-A': '2' } });
    await client.facets.list({}, { headers: { 'X-B': '1', 'x-b': '2' } });
    expect(server.requests[0]!.headers['x-a']).toBe('2');
    expect(server.requests[0]!.headers['x-b']).toBe('2');
  });

  it('null removes a header the SDK would send', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, headers: { accept: null } });
    await client.facets.list();
    expect(server.requests[0]!.headers.accept).toBe('*/*'); // fetch's own default, not ours
  });
});

describe('credentials are checked only for what a header can carry (issue 8 #9, SPEC §4)', () => {
  it('sends a key of any shape a key manager may issue: the server is the judge', async () => {
    const server = await facetsServer();
    for (const key of ['rls_3ZfTq8wXkLmN2pRsVbYc9dEhJuK', 'rls_short', 'sk_live_other_vendor']) {
      await new ReleasesClient({ baseUrl: server.baseUrl, apiKey: key }).facets.list();
      expect(server.requests.at(-1)!.headers['x-api-key']).toBe(key);
    }
  });

  it.each([
    ['', /is empty/],
    ['   ', /is empty/],
    [' rls_x', /leading or trailing whitespace/],
    ['rls_x\n', /leading or trailing whitespace/],
    ['rls_\u0000x', /control character or a non-ASCII/],
    ['rls_ключ', /control character or a non-ASCII/],
  ])('refuses the API key %j at construction', async (apiKey, message) => {
    const server = await facetsServer();
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, apiKey })).toThrow(ReleasesError);
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, apiKey })).toThrow(message);
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, apiKey })).toThrow(/apiKey/);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['', /is empty/],
    ['tok en\r\nx-evil: 1', /control character/],
    ['tökén', /non-ASCII/],
  ])('refuses the session token %j at construction', async (sessionToken, message) => {
    const server = await facetsServer();
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, sessionToken })).toThrow(ReleasesError);
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, sessionToken })).toThrow(message);
    expect(() => new ReleasesClient({ baseUrl: server.baseUrl, sessionToken })).toThrow(/sessionToken/);
  });

  it('checks a key from a function before each request, and sends nothing when it cannot be sent', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: () => Promise.resolve('rls_\u0007') });
    const error = await client.facets.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReleasesError);
    expect((error as Error).message).toMatch(/control character/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('identification (issue 8 #10)', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

  it('exports VERSION, the package version', () => {
    expect(VERSION).toBe(manifest.version);
  });

  it('sends user-agent and x-releases-client from Node', async () => {
    const server = await facetsServer();
    await new ReleasesClient({ baseUrl: server.baseUrl }).facets.list();
    expect(server.requests[0]!.headers['x-releases-client']).toBe(VERSION);
    expect(server.requests[0]!.headers['user-agent']).toBe(`releases-client/${VERSION} node/${process.versions.node}`);
  });

  it('a user-agent of your own replaces it; x-releases-client stays', async () => {
    const server = await facetsServer();
    await new ReleasesClient({ baseUrl: server.baseUrl, headers: { 'User-Agent': 'my-app/1.0' } }).facets.list();
    expect(server.requests[0]!.headers['user-agent']).toBe('my-app/1.0');
    expect(server.requests[0]!.headers['x-releases-client']).toBe(VERSION);
  });
});

describe('APIPromise (issue 8 #10)', () => {
  it('is a real Promise: instanceof, Promise.prototype methods, assignable where a Promise is expected', async () => {
    const server = await facetsServer();
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const pending = client.facets.list();
    expect(pending).toBeInstanceOf(Promise);
    expect(Object.prototype.toString.call(pending)).toBe('[object Promise]');
    const derived = pending.then((facets) => facets.genres);
    expect(derived.constructor).toBe(Promise);
    expect(await derived).toEqual([]);
    expect(
      await Promise.all([client.facets.list(), client.releases.list({ limit: 1 })].map((p) => p.then(() => 1))),
    ).toEqual([1, 1]);
  });

  it('withResponse() alone leaves no unhandled rejection behind', async () => {
    api = await scriptedServer((_request, res) => sendJson(res, 404, { title: 'x', status: 404, detail: 'none' }));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = new ReleasesClient({ baseUrl: api.baseUrl });
      await expect(client.facets.list().withResponse()).rejects.toBeInstanceOf(ReleasesError);
      // Unhandled rejections are reported after the microtask queue drains: give it two macrotasks.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InternalServerError,
  RateLimitError,
  ReleasesClient,
  ServiceUnavailableError,
  TimeoutError,
} from '../src/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real HTTP server on a loopback port whose every answer the test scripts. */
async function scripted(handler: Handler): Promise<{ baseUrl: string; attempts: () => number }> {
  let attempts = 0;
  server = createServer((req, res) => handler(req, res, ++attempts));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts: () => attempts };
}

const problem = (res: ServerResponse, status: number, kind: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': `req-${status}`, ...headers });
  res.end(JSON.stringify({ type: `http://x/problems/${kind}`, title: kind, status, detail: `scripted ${status}` }));
};
const facets = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      success: true,
      data: { vocaloid_banks: [], genres: [], languages: [], total: 0, generated_at: new Date().toISOString() },
    }),
  );
};
const fast = { retryBackoff: { baseDelayMs: 5, maxDelayMs: 20 } };

describe('retries', () => {
  it('retries a 503 and succeeds', async () => {
    const api = await scripted((_req, res, attempt) =>
      attempt < 3 ? problem(res, 503, 'service-unavailable') : facets(res),
    );
    const client = new ReleasesClient({ baseUrl: api.baseUrl, ...fast });
    expect((await client.facets.list()).genres).toEqual([]);
    expect(api.attempts()).toBe(3);
  });

  it('honours Retry-After on a 429', async () => {
    const api = await scripted((_req, res, attempt) =>
      attempt === 1 ? problem(res, 429, 'rate-limited', { 'retry-after': '1' }) : facets(res),
    );
    const started = Date.now();
    await new ReleasesClient({ baseUrl: api.baseUrl, ...fast }).facets.list();
    expect(api.attempts()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('throws RateLimitError at once when Retry-After is over 60 s', async () => {
    const api = await scripted((_req, res) => problem(res, 429, 'rate-limited', { 'retry-after': '120' }));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, ...fast }).facets.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(120_000);
    expect(api.attempts()).toBe(1);
  });

  it('gives up after maxRetries with the last error', async () => {
    const api = await scripted((_req, res) => problem(res, 503, 'service-unavailable'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 2, ...fast }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).requestId).toBe('req-503');
    expect(api.attempts()).toBe(3);
  });

  // SPEC §8 (issue 19) retries a GET on 500 (test/responses.test.ts); a DELETE's 500 may have revoked the key.
  it('does not retry a 500 of a DELETE, or a non-idempotent request', async () => {
    const api = await scripted((_req, res) => problem(res, 500, 'internal-error'));
    const client = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: 'session', ...fast });
    await expect(client.keys.revoke('key_1')).rejects.toBeInstanceOf(InternalServerError);
    expect(api.attempts()).toBe(1);
    const posting = await scripted((_req, res) => problem(res, 503, 'service-unavailable'));
    const poster = new ReleasesClient({ baseUrl: posting.baseUrl, ...fast });
    await expect(poster.request({ method: 'POST', path: '/api/v1/keys', body: { name: 'x' } })).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(posting.attempts()).toBe(1);
  });

  it('retries a connection reset, then reports ConnectionError', async () => {
    const api = await scripted((req) => req.socket.destroy());
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 1, ...fast }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(api.attempts()).toBe(2);
  });

  it('times out a stalled body (the timer covers reading it) and retries each attempt with its own timeout', async () => {
    const api = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,');
      // ...and never finishes.
    });
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, timeoutMs: 150, maxRetries: 1, ...fast }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(api.attempts()).toBe(2);
  });

  it('an abort during backoff rejects with the signal reason and stops retrying', async () => {
    const api = await scripted((_req, res) => problem(res, 503, 'service-unavailable', { 'retry-after': '30' }));
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const pending = new ReleasesClient({ baseUrl: api.baseUrl }).facets
      .list({}, { signal: controller.signal })
      .catch((e: unknown) => e);
    await expect.poll(() => api.attempts()).toBe(1);
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(api.attempts()).toBe(1);
  });

  it('a non-problem error body (a proxy page) still gives a typed error with the status', async () => {
    const api = await scripted((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
    });
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 0 }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(502);
    expect((error as Error).message).toContain('Bad gateway');
  });
});

describe('pagination safety', () => {
  it('a repeated cursor throws instead of looping forever', async () => {
    const api = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          success: true,
          data: { releases: [], pagination: 'same-cursor', generated_at: new Date().toISOString() },
        }),
      );
    });
    const client = new ReleasesClient({ baseUrl: api.baseUrl });
    const iterate = async () => {
      for await (const _release of client.releases.list()) {
        // nothing: every page is empty, and iteration must still end on the cursor, not on emptiness
      }
    };
    await expect(iterate()).rejects.toThrow(/cursor it had returned before/);
    expect(api.attempts()).toBe(2);
  });

  it('an empty page with a next cursor does not end iteration', async () => {
    const api = await scripted((req, res) => {
      const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor');
      res.writeHead(200, { 'content-type': 'application/json' });
      const page =
        cursor === null ? { releases: [], pagination: 'c1' } : { releases: [{ id: 'rel_last' }], pagination: '' };
      res.end(JSON.stringify({ success: true, data: { ...page, generated_at: new Date().toISOString() } }));
    });
    const ids: string[] = [];
    for await (const release of new ReleasesClient({ baseUrl: api.baseUrl }).releases.list()) ids.push(release.id);
    expect(ids).toEqual(['rel_last']);
  });
});

describe('logging', () => {
  it('never logs the API key in full', async () => {
    const api = await scripted((_req, res) => facets(res));
    const lines: string[] = [];
    const capture = (message: string, ...details: unknown[]) => lines.push(`${message} ${JSON.stringify(details)}`);
    const key = 'rls_' + 'A'.repeat(32);
    const { apiKeyChecksum } = await import('@releases/contract/wire');
    const client = new ReleasesClient({
      baseUrl: api.baseUrl,
      apiKey: key + apiKeyChecksum(key),
      sessionToken: 'secret-session-token-value',
      logLevel: 'debug',
      logger: { debug: capture, info: capture, warn: capture, error: capture },
    });
    await client.facets.list();
    expect(lines.join('\n')).toContain('rls_AAAAAAAA…');
    expect(lines.join('\n')).not.toContain(key.slice(4, 30));
    expect(lines.join('\n')).not.toContain('secret-session-token-value');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/errors.js';
import {
  APIError,
  InternalServerError,
  NotFoundError,
  ReleasesClient,
  ResponseValidationError,
  type Logger,
} from '../src/index.js';
import { emptyFacets, scriptedServer, sendJson, sendProblem, type ScriptedServer } from './scripted-server.js';

/** What a caller gets from a response (issue 19 #1, SPEC §8). Each test runs against a scripted loopback server. */
let api: ScriptedServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const fast = { retryBackoff: { baseDelayMs: 1, maxDelayMs: 2 } };

describe('a response without the data the call returns', () => {
  it.each([
    ['200 with an empty body', 200],
    ['204 No Content', 204],
  ])('%s is a ResponseValidationError, not a TypeError (and not retried)', async (_what, status) => {
    api = await scriptedServer((_request, res) => res.writeHead(status).end());
    const client = new ReleasesClient({ baseUrl: api.baseUrl, ...fast });
    const facets = await client.facets.list().catch((e: unknown) => e);
    expect(facets).toBeInstanceOf(ResponseValidationError);
    expect((facets as Error).message).toMatch(new RegExp(`facets.list.*${status}`));
    await expect(client.releases.get('rel_1')).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(client.releases.list()).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(client.health.check()).rejects.toBeInstanceOf(ResponseValidationError);
    expect(api.requests).toHaveLength(4);
  });

  it('where no data is due, an empty answer is fine: logout, and request() of any endpoint', async () => {
    api = await scriptedServer((_request, res) => res.writeHead(204).end());
    const client = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: 'token' });
    await expect(client.auth.logout()).resolves.toBeUndefined();
    await expect(client.request({ method: 'DELETE', path: '/api/v1/anything' })).resolves.toBeUndefined();
  });
});

describe('kind on errors', () => {
  const headers = new Headers({ 'x-request-id': 'req-1' });
  const problem = (kind: string, status: number) => ({
    type: `https://api.example.com/problems/${kind}`,
    title: kind,
    status,
    detail: 'd',
  });

  it('is the problem kind the body names', () => {
    expect(errorFromResponse(429, headers, problem('rate-limited', 429), '').kind).toBe('rate-limited');
    expect(errorFromResponse(400, headers, problem('invalid-cursor', 400), '').kind).toBe('invalid-cursor');
    expect(errorFromResponse(405, headers, problem('method-not-allowed', 405), '').kind).toBe('method-not-allowed');
  });

  it("a kind this SDK does not know yet (a newer server's) is still given; no problem body, no kind", () => {
    const newer = errorFromResponse(410, headers, problem('gone-for-good', 410), '');
    expect(newer.constructor).toBe(APIError);
    expect(newer.kind).toBe('gone-for-good');
    expect(errorFromResponse(502, headers, undefined, '<html>Bad gateway</html>').kind).toBeUndefined();
    expect(errorFromResponse(404, headers, { message: 'nope' }, '').kind).toBeUndefined();
  });

  it('arrives on the thrown error', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 404, 'not-found'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl }).releases.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
  });
});

describe('asResponse()', () => {
  it('gives the raw Response: status, headers, and a body still to read', async () => {
    api = await scriptedServer((_request, res) => sendJson(res, 200, emptyFacets, { 'x-request-id': 'req-9' }));
    const client = new ReleasesClient({ baseUrl: api.baseUrl });
    const response = await client.facets.list().asResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req-9');
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual(emptyFacets);
    const page = await client.releases.list().asResponse();
    expect(page.status).toBe(200);
  });

  it('throws the typed error for a non-2xx, after the retries, as awaiting the call does', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 503, 'service-unavailable'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 1, ...fast }).facets
      .list()
      .asResponse()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServiceUnavailableError', kind: 'service-unavailable' });
    expect(api.requests).toHaveLength(2);
  });

  it('a 204 answer comes back as a 204 Response without a body', async () => {
    api = await scriptedServer((_request, res) => res.writeHead(204).end());
    const response = await new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: 't' }).auth.logout().asResponse();
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });
});

describe('withOptions()', () => {
  it('makes a client with other defaults; this one is unchanged', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 503, 'service-unavailable'));
    const client = new ReleasesClient({ baseUrl: api.baseUrl, apiKey: 'rls_kept', maxRetries: 2, ...fast });
    const failFast = client.withOptions({ maxRetries: 0, timeoutMs: 1_000 });
    expect(failFast).toBeInstanceOf(ReleasesClient);
    expect([failFast.maxRetries, failFast.timeoutMs, failFast.baseUrl]).toEqual([0, 1_000, api.baseUrl]);
    expect([client.maxRetries, client.timeoutMs]).toEqual([2, 30_000]);
    await expect(failFast.facets.list()).rejects.toMatchObject({ status: 503 });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers['x-api-key']).toBe('rls_kept');
  });

  it('merges headers (by name, whatever the case; null removes one) and keeps the session', async () => {
    api = await scriptedServer((_request, res) => sendJson(res, 200, { success: true, data: { keys: [] } }));
    const client = new ReleasesClient({
      baseUrl: api.baseUrl,
      sessionToken: 'session-token',
      headers: { 'X-App': 'one', 'x-trace': 'a' },
    });
    await client.withOptions({ headers: { 'x-app': 'two', 'X-Trace': null, 'x-new': 'n' } }).keys.list();
    const sent = api.requests[0]!.headers;
    expect([sent['x-app'], sent['x-trace'], sent['x-new'], sent.authorization]).toEqual([
      'two',
      undefined,
      'n',
      'Bearer session-token',
    ]);
  });

  it('checks its options as the constructor does', () => {
    const client = new ReleasesClient({ baseUrl: 'http://127.0.0.1:9' });
    expect(() => client.withOptions({ timeoutMs: -1 })).toThrow(/^timeoutMs must be/);
  });
});

describe('retries on 500', () => {
  it('a GET is retried on 500 (SPEC §8), and succeeds', async () => {
    api = await scriptedServer((_request, res, attempt) =>
      attempt === 1 ? sendProblem(res, 500, 'internal-error') : sendJson(res, 200, emptyFacets),
    );
    expect(await new ReleasesClient({ baseUrl: api.baseUrl, ...fast }).facets.list()).toEqual(emptyFacets.data);
    expect(api.requests).toHaveLength(2);
  });

  it('a GET that keeps failing gives the InternalServerError after its retries', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 500, 'internal-error'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 2, ...fast }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(api.requests).toHaveLength(3);
  });

  it('a DELETE or a POST is not retried on 500: it may have taken effect', async () => {
    api = await scriptedServer((_request, res) => sendProblem(res, 500, 'internal-error'));
    const client = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: 't', ...fast });
    await expect(client.keys.revoke('key_1')).rejects.toBeInstanceOf(InternalServerError);
    await expect(client.keys.create({ name: 'x' })).rejects.toBeInstanceOf(InternalServerError);
    expect(api.requests.map((request) => request.method)).toEqual(['DELETE', 'POST']);
  });
});

describe('debug logging', () => {
  it('one line per response: method, path, status, duration and request id; no credential', async () => {
    api = await scriptedServer((_request, res, attempt) =>
      attempt === 1
        ? sendProblem(res, 503, 'service-unavailable')
        : sendJson(res, 200, emptyFacets, { 'x-request-id': 'req-ok' }),
    );
    const lines: string[] = [];
    const logger: Logger = {
      error: () => {},
      warn: () => {},
      info: () => {},
      debug: (message, ...details) => lines.push(`${message} ${JSON.stringify(details)}`),
    };
    const client = new ReleasesClient({
      baseUrl: api.baseUrl,
      apiKey: 'rls_secretsecretsecret',
      logger,
      logLevel: 'debug',
      ...fast,
    });
    await client.facets.list();
    const responses = lines.filter((line) => /→ \d{3}/.test(line));
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/GET \/api\/v1\/facets → 503 in \d+ ms \(request id req-503\)/);
    expect(responses[1]).toMatch(/GET \/api\/v1\/facets → 200 in \d+ ms \(request id req-ok\)/);
    expect(lines.join('\n')).not.toContain('secretsecretsecret');
  });
});

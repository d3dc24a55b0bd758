import { afterEach, describe, expect, it } from 'vitest';
import { RedirectError, ReleasesClient } from '../src/index.js';
import { emptyFacets, scriptedServer, sendJson, type ScriptedServer } from './scripted-server.js';

/**
 * Credentials never follow a redirect to another origin (issue 8 #2). Two real loopback servers: the API's
 * origin, and "elsewhere", which records whatever reaches it.
 */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function elsewhere(): Promise<ScriptedServer> {
  const server = await scriptedServer((_request, res) => sendJson(res, 200, emptyFacets));
  servers.push(server);
  return server;
}

async function redirectingTo(location: (url: string) => string | undefined, status = 307): Promise<ScriptedServer> {
  const server = await scriptedServer((request, res) => {
    const target = location(request.url);
    if (target === undefined) return sendJson(res, 200, emptyFacets);
    res.writeHead(status, { location: target });
    res.end();
  });
  servers.push(server);
  return server;
}

describe('redirects to another origin', () => {
  it.each([301, 302, 303, 307, 308])('a %i is refused: the API key never reaches the other origin', async (status) => {
    const other = await elsewhere();
    const api = await redirectingTo((url) => `${other.baseUrl}${url}`, status);
    const client = new ReleasesClient({ baseUrl: api.baseUrl, apiKey: 'rls_secret', maxRetries: 2 });
    const error = await client.facets.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).message).toContain(other.baseUrl);
    expect((error as RedirectError).message).toMatch(/another origin/);
    expect((error as RedirectError).status).toBe(status);
    expect((error as RedirectError).location).toBe(`${other.baseUrl}/api/v1/facets`);
    expect(other.requests).toHaveLength(0);
    expect(api.requests).toHaveLength(1); // not retried either
  });

  it('is refused for a session token too, and for a scheme change on the same host', async () => {
    const other = await elsewhere();
    const api = await redirectingTo((url) => `${other.baseUrl}${url}`);
    const client = new ReleasesClient({ baseUrl: api.baseUrl, sessionToken: 'a'.repeat(43) });
    await expect(client.keys.list()).rejects.toBeInstanceOf(RedirectError);
    expect(other.requests).toHaveLength(0);

    const https = await redirectingTo((url) => `${api.baseUrl.replace('http:', 'https:')}${url}`);
    await expect(new ReleasesClient({ baseUrl: https.baseUrl, apiKey: 'rls_x' }).facets.list()).rejects.toThrow(
      /another origin/,
    );
  });
});

describe('redirects within the origin', () => {
  it('are followed with the credentials (relative Location)', async () => {
    const api = await redirectingTo((url) => (url === '/api/v1/facets' ? '/api/v2/facets' : undefined), 308);
    const client = new ReleasesClient({ baseUrl: api.baseUrl, apiKey: 'rls_secret' });
    expect(await client.facets.list()).toEqual(emptyFacets.data);
    expect(api.requests.map((request) => [request.url, request.headers['x-api-key']])).toEqual([
      ['/api/v1/facets', 'rls_secret'],
      ['/api/v2/facets', 'rls_secret'],
    ]);
  });

  it('a 303 after a POST becomes a GET without the body; a 307 keeps method and body', async () => {
    const see = await redirectingTo((url) => (url === '/form' ? '/result' : undefined), 303);
    await new ReleasesClient({ baseUrl: see.baseUrl }).request({ method: 'POST', path: '/form', body: { a: 1 } });
    expect(see.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ['POST', '/form', '{"a":1}'],
      ['GET', '/result', ''],
    ]);
    expect(see.requests[1]!.headers['content-type']).toBeUndefined();

    const temporary = await redirectingTo((url) => (url === '/form' ? '/again' : undefined), 307);
    await new ReleasesClient({ baseUrl: temporary.baseUrl }).request({ method: 'POST', path: '/form', body: { a: 1 } });
    expect(temporary.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ['POST', '/form', '{"a":1}'],
      ['POST', '/again', '{"a":1}'],
    ]);
  });

  it('are bounded: a loop ends with a RedirectError after 5 hops', async () => {
    const api = await redirectingTo((url) => `${url}x`, 302);
    const error = await new ReleasesClient({ baseUrl: api.baseUrl, maxRetries: 2 }).facets
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toMatch(/too many redirects/i);
    expect(api.requests).toHaveLength(6);
  });
});

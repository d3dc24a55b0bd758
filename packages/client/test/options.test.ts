import { afterEach, describe, expect, it } from 'vitest';
import { ReleasesClient, ReleasesError, type ClientOptions } from '../src/index.js';
import { emptyFacets, scriptedServer, sendJson, sendProblem, type ScriptedServer } from './scripted-server.js';

/** Bad options are refused when the client is made (issue 8 #6), with a message naming the option. */
const baseUrl = 'http://127.0.0.1:9';
let api: ScriptedServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('client options', () => {
  it.each([
    ['timeoutMs', Number.NaN],
    ['timeoutMs', 0],
    ['timeoutMs', -1],
    ['timeoutMs', 1.5],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', 2 ** 31], // setTimeout would fire at once
    ['timeoutMs', '5000'],
    ['maxRetries', Number.NaN],
    ['maxRetries', -1],
    ['maxRetries', 1.5],
    ['maxRetries', Number.POSITIVE_INFINITY],
    ['maxRetries', '2'],
  ])('refuses %s: %j', (name, value) => {
    const make = () => new ReleasesClient({ baseUrl, [name]: value });
    expect(make).toThrow(ReleasesError);
    expect(make).toThrow(new RegExp(`^${name} must be`));
  });

  it.each([
    [{ baseDelayMs: Number.NaN }, /retryBackoff.baseDelayMs/],
    [{ baseDelayMs: -1 }, /retryBackoff.baseDelayMs/],
    [{ maxDelayMs: Number.POSITIVE_INFINITY }, /retryBackoff.maxDelayMs/],
  ])('refuses retryBackoff %j', (retryBackoff, message) => {
    expect(() => new ReleasesClient({ baseUrl, retryBackoff })).toThrow(message);
  });

  it.each([
    ['ftp://example.com', /http\(s\) URL/],
    ['not a url', /http\(s\) URL/],
    ['http://user:secret@example.com', /credentials/],
    ['http://example.com/api?x=1', /query or fragment/],
    ['http://example.com/#top', /query or fragment/],
  ])('refuses baseUrl %j', (value, message) => {
    expect(() => new ReleasesClient({ baseUrl: value })).toThrow(message);
  });

  it('keeps a path prefix of baseUrl (an API behind a proxy path)', async () => {
    api = await scriptedServer((_request, res) => sendJson(res, 200, emptyFacets));
    await new ReleasesClient({ baseUrl: `${api.baseUrl}/releases/` }).facets.list();
    expect(api.requests[0]!.url).toBe('/releases/api/v1/facets');
  });

  it('refuses an unknown logLevel, a fetch that is not a function and a header that cannot be sent', () => {
    expect(() => new ReleasesClient({ baseUrl, logLevel: 'verbose' } as unknown as ClientOptions)).toThrow(/logLevel/);
    expect(() => new ReleasesClient({ baseUrl, fetch: 'fetch' } as unknown as ClientOptions)).toThrow(/fetch/);
    expect(() => new ReleasesClient({ baseUrl, headers: { 'bad name': 'x' } })).toThrow(/header "bad name"/);
    expect(() => new ReleasesClient({ baseUrl, headers: { 'x-ok': 'a\nb' } })).toThrow(/header "x-ok"/);
  });

  it('undefined means the default (exactOptionalPropertyTypes callers pass it)', () => {
    const client = new ReleasesClient({ baseUrl, timeoutMs: undefined, maxRetries: undefined, apiKey: undefined });
    expect([client.timeoutMs, client.maxRetries]).toEqual([30_000, 2]);
  });
});

describe('per-call options', () => {
  it.each([
    [{ timeoutMs: Number.NaN }, /^timeoutMs must be/],
    [{ maxRetries: -1 }, /^maxRetries must be/],
    [{ headers: { 'x-bad': 'a\r\nb' } }, /header "x-bad"/],
  ])('refuses %j before any request', async (options, message) => {
    api = await scriptedServer((_request, res) => sendProblem(res, 503, 'service-unavailable'));
    const error = await new ReleasesClient({ baseUrl: api.baseUrl }).facets.list({}, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReleasesError);
    expect((error as Error).message).toMatch(message);
    expect(api.requests).toHaveLength(0);
  });
});

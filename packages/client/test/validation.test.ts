import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleasesClient } from '../src/index.js';
import { ResponseValidationError, validateResponses } from '../src/validation.js';

let server: Server;
let baseUrl: string;
let body: unknown;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const facets = {
  vocaloid_banks: [{ value: 'GUMI', count: 3 }],
  genres: [],
  languages: [],
  total: 3,
  generated_at: '2026-11-22T08:00:00.000Z',
};

describe('opt-in response validation', () => {
  it('is off by default: a response is passed through as is', async () => {
    body = { success: true, data: { ...facets, genres: 'not an array' } };
    const result = await new ReleasesClient({ baseUrl }).facets.list();
    expect(result.genres).toBe('not an array');
  });

  it('rejects a response that breaks the contract, naming the field', async () => {
    body = { success: true, data: { ...facets, genres: 'not an array' } };
    const error = await new ReleasesClient({ baseUrl, validateResponses }).facets.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toContain('data.genres');
  });

  it('accepts fields a newer server adds', async () => {
    body = {
      success: true,
      data: { ...facets, vocaloid_banks: [{ value: 'GUMI', count: 3, since: 2009 }], new_facet: [] },
      meta: {},
    };
    const result = await new ReleasesClient({ baseUrl, validateResponses }).facets.list();
    expect(result.vocaloid_banks[0]?.value).toBe('GUMI');
  });
});

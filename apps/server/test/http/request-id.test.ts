import { randomUUID } from 'node:crypto';
import { ProblemSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
});
afterAll(() => server.close());

async function problemFor(id: string): Promise<{ header: string | null; instance: string | undefined }> {
  const response = await server.get('/api/v1/release/rel_unknown', { headers: { 'x-request-id': id } });
  expect(response.status).toBe(404);
  const body = ProblemSchema.parse(await response.json());
  return { header: response.headers.get('x-request-id'), instance: body.instance };
}

describe('x-request-id (SPEC §3.4)', () => {
  it.each([
    ['a load balancer 32-hex id', '4bf92f3577b34da6a3ce929d0e0e4736'],
    ['a dotted, colon-separated trace id', '1-67891233.abcdef012345678912345678:span_7'],
    ['one character', 'x'],
    ['128 characters', 'a'.repeat(128)],
  ])('echoes %s and names it urn:request:<id> in problems', async (_name, id) => {
    expect(await problemFor(id)).toEqual({ header: id, instance: `urn:request:${id}` });
  });

  it('names a UUID urn:uuid:<id>', async () => {
    const id = randomUUID();
    expect(await problemFor(id)).toEqual({ header: id, instance: `urn:uuid:${id}` });
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'abc def'],
    ['markup', '<script>'],
    ['a slash', 'a/b'],
    ['non-ASCII', 'caf\u00e9'],
  ])('replaces an id with %s by a generated UUID', async (_name, id) => {
    const { header, instance } = await problemFor(id);
    expect(header).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(instance).toBe(`urn:uuid:${header}`);
  });
});

import { AuthenticationError, BadRequestError, ReleasesClient } from '@releases/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedIds, sampleReleases, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the SDK against this server', () => {
  it('walks every page of a filtered list', async () => {
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const ids: string[] = [];
    for await (const release of client.releases.list({ genres: ['rock', 'electropop'], limit: 9 }))
      ids.push(release.id);
    expect(ids).toEqual(expectedIds(await sampleReleases(), { genres: ['rock', 'electropop'] }));
  });

  it('turns problems into typed errors', async () => {
    const { key, id } = await server.createKey();
    const client = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: key });
    expect(await client.health.check()).toBe('OK');
    await server.services.keys.revoke(id);
    await expect(client.health.check()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(new ReleasesClient({ baseUrl: server.baseUrl }).releases.list({ limit: 500 })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

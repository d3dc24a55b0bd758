import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
});
afterAll(() => server.close());

describe('/docs/assets', () => {
  it('serves the files the reference page loads, with their types', async () => {
    const page = await (await server.get('/docs')).text();
    const assets = page.match(/\/docs\/assets\/[\w.-]+/g) ?? [];
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const response = await server.get(asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/);
    }
  });

  it.each([
    'package.json',
    'index.html',
    'index.js',
    'absolute-path.js',
    'swagger-initializer.js',
    'oauth2-redirect.html',
    'swagger-ui.js',
    'swagger-ui-bundle.js.map',
    'README.md',
    'LICENSE',
    '..%2Fpackage.json',
  ])('answers a 404 problem for anything else: %s', async (file) => {
    await expectProblem(await server.get(`/docs/assets/${file}`), 'not-found', 404);
  });
});

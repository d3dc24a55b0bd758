import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
});
afterAll(() => server.close());

describe('probes, docs and problem pages', () => {
  it('serves the interactive reference and its assets', async () => {
    const page = await server.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const asset of html.match(/\/docs\/assets\/[\w.-]+/g) ?? []) {
      expect((await server.get(asset)).status, asset).toBe(200);
    }
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
  });

  it('resolves every problem type URI to a page', async () => {
    const { problemKindNames } = await import('@releases/contract');
    for (const kind of problemKindNames) {
      const response = await server.get(`/problems/${kind}`);
      expect(response.status, kind).toBe(200);
      expect(await response.text()).toContain('<h1>');
    }
    await expectProblem(await server.get('/problems/no-such-kind'), 'not-found', 404);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { webAppMessages, webAppRoutes } from '../../src/http/web-app.js';
import { createLogger } from '../../src/kernel/logger.js';
import { composeServer, openServices, type Services } from '../../src/services.js';
import { expectProblem } from '../support/harness.js';

/** A server whose web app folder is `webRoot` (a stand-in for apps/web/dist). */
async function serve(webRoot: string): Promise<{ url: string; close: () => Promise<void> }> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const services: Services = await openServices(
    testConfig({ databaseUrl: 'file::memory:', publicUrl: url }),
    createLogger('silent'),
  );
  const logger = createLogger('silent');
  const parts = await composeServer(services, logger);
  http.on('request', createApp({ ...services, ...parts, logger, webAppRoot: webRoot }).listener);
  return {
    url,
    close: async () => {
      await new Promise((resolve) => http.close(resolve));
      await parts.close();
      await services.close();
    },
  };
}

const indexHtml =
  '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const html = { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } };

let folder: string;
let built: { url: string; close: () => Promise<void> };
let unbuilt: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'releases-web-'));
  const dist = path.join(folder, 'dist');
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), indexHtml);
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log("app")');
  writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  built = await serve(dist);
  unbuilt = await serve(path.join(folder, 'missing'));
});
afterAll(async () => {
  await built.close();
  await unbuilt.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the web app, served by the server', () => {
  it('serves index.html at / with no-cache and a CSP that allows only what the app needs', async () => {
    const response = await fetch(`${built.url}/`, html);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe(indexHtml);
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data: https:",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(csp).not.toContain('unsafe');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("answers the app's routes with index.html, and any page a browser navigates to", async () => {
    for (const route of ['/signin', '/signup', '/settings/keys', '/settings/keys/', '/some/unknown/page']) {
      const response = await fetch(`${built.url}${route}`, html);
      expect(response.status, route).toBe(200);
      expect(response.headers.get('cache-control'), route).toBe('no-cache');
      expect(await response.text(), route).toBe(indexHtml);
    }
    // The app's own routes, for any client (curl, fetch: Accept */*).
    for (const route of webAppRoutes) {
      const anything = await fetch(`${built.url}${route}`);
      expect(anything.status, route).toBe(200);
      expect(await anything.text(), route).toBe(indexHtml);
    }
    const head = await fetch(`${built.url}/settings/keys`, { ...html, method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('caches hashed assets for a year, immutable, and revalidates the other files', async () => {
    const asset = await fetch(`${built.url}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const icon = await fetch(`${built.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('never answers HTML for a missing file, an API path, or a client that does not accept HTML', async () => {
    await expectProblem(await fetch(`${built.url}/assets/index-gone99.js`), 'not-found', 404);
    await expectProblem(await fetch(`${built.url}/robots.txt`, html), 'not-found', 404);
    for (const apiPath of ['/api/v1/nope', '/api/v2/release', '/api', '/problems/a/b', '/docs/assets/nope.js']) {
      await expectProblem(await fetch(`${built.url}${apiPath}`, html), 'not-found', 404);
    }
    await expectProblem(
      await fetch(`${built.url}/signin`, { headers: { accept: 'application/json' } }),
      'not-found',
      404,
    );
    // A script fetching a page that does not exist is told so, not handed the app.
    await expectProblem(await fetch(`${built.url}/nothing/here`), 'not-found', 404);
    const post = await fetch(`${built.url}/signin`, { ...html, method: 'POST' });
    expect(post.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('leaves the API, the reference, the problem pages and the probes as they were', async () => {
    const api = await fetch(`${built.url}/api/v1/release`, html);
    expect(api.status).toBe(200);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    const docs = await fetch(`${built.url}/docs`, html);
    expect(await docs.text()).toContain('swagger-ui');
    expect(docs.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
    const problemPage = await fetch(`${built.url}/problems/not-found`, html);
    expect(await problemPage.text()).toContain('<h1>Not found</h1>');
    expect(await (await fetch(`${built.url}/livez`, html)).text()).toBe('"OK"');
  });

  it('says how to build the web app when it is not built, and the API still works', async () => {
    const response = await fetch(`${unbuilt.url}/`, html);
    const problem = await expectProblem(response, 'not-found', 404);
    expect(problem.detail).toBe(webAppMessages.notBuilt);
    expect((await fetch(`${unbuilt.url}/api/v1/facets`)).status).toBe(200);
  });
});

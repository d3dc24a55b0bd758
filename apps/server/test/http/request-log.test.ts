import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logCapture, startTestServer, type TestServer } from '../support/harness.js';

/**
 * Request logs never hold what a client put in a path the server does not know, and nothing shaped like an
 * API key or an email in any path (issue 30 #4).
 */
describe('the paths request lines hold', () => {
  const log = logCapture();
  const webRoot = mkdtempSync(path.join(tmpdir(), 'releases-web-'));
  let server: TestServer;
  beforeAll(async () => {
    mkdirSync(path.join(webRoot, 'assets'));
    writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Releases</title>');
    writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js'), 'console.log(1)');
    server = await startTestServer({ releases: 'none', logDestination: log.stream, webAppRoot: webRoot });
  });
  afterAll(async () => {
    await server.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  /** The `path` of each request line, in order. */
  async function loggedPaths(): Promise<string[]> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return log
      .text()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { path: string }).path);
  }

  it('logs an unknown path only as unknown, and redacts keys and emails in the paths it knows', async () => {
    const key = 'rls_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AB';
    await server.get(`/api/v1/${key}/me@example.com`);
    await server.get(`/wp-admin/${key}`, { headers: { accept: 'text/html' } });
    await server.get('/settings/keys', { headers: { accept: 'text/html' } });
    await server.get('/assets/app-abc123.js');
    await server.get(`/api/v1/release/${key}`);
    await server.get('/api/v1/release/rel_someid');
    await server.get(`/api/v1/release?q=${encodeURIComponent(key)}`);
    const paths = await loggedPaths();
    expect(paths).toEqual([
      '(unknown path)',
      '(unknown path)',
      '/settings/keys',
      '/assets/app-abc123.js',
      '/api/v1/release/[redacted]',
      '/api/v1/release/rel_someid',
      '/api/v1/release',
    ]);
    expect(log.text()).not.toContain(key.slice(4));
    expect(log.text()).not.toContain('me@example.com');
  });
});

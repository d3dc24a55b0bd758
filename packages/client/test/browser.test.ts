import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@releases/test-chromium';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Sdk from '../src/index.js';
import { startLiveServer, type LiveServer } from './server-harness.js';

/**
 * The built ESM bundle in real Chromium (driven by playwright-core; which one is printed), with the browser's own
 * `fetch` (issue 8 #1): a page on the API's origin, and a page on another origin that reaches the API through
 * CORS. Each page imports `dist/index.js` exactly as published, served from the page's own origin.
 */
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(packageRoot, 'dist');
/** The page imports the bundle as an application would, and hands the module to the test. */
const testPage = `<!doctype html><html><head><meta charset="utf-8"><title>sdk test</title>
<script type="module">import * as sdk from './index.js'; window.releasesSdk = sdk;</script></head><body></body></html>`;
declare global {
  interface Window {
    releasesSdk: typeof Sdk;
  }
}

let server: LiveServer;
let key: string;
let browser: Browser;
let otherOrigin: Server;
let otherBaseUrl: string;

/** A dist file (or the empty page) for a path under a prefix; undefined when there is no such file. */
function asset(relative: string): { body: Buffer | string; contentType: string } | undefined {
  if (relative === 'page.html') return { body: testPage, contentType: 'text/html' };
  const file = path.join(dist, relative);
  if (!file.startsWith(dist + path.sep) || !existsSync(file)) return undefined;
  return { body: readFileSync(file), contentType: 'text/javascript' };
}

beforeAll(async () => {
  if (!existsSync(path.join(dist, 'index.js'))) throw new Error('build the SDK first: pnpm build');
  server = await startLiveServer();
  key = (await server.createKey()).key;
  browser = await launchChromium();
  // Another origin: same host, another port. It serves only the page and the bundle.
  otherOrigin = createServer((req, res) => {
    const found = asset((req.url ?? '/').replace(/^\/+/, ''));
    if (!found) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': found.contentType }).end(found.body);
  });
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
  otherBaseUrl = `http://127.0.0.1:${(otherOrigin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (otherOrigin ? otherOrigin.close(resolve) : resolve(undefined)));
  await server?.stop();
});

/**
 * A fresh page at `{API origin}/__sdk-test/page.html`. The page and the bundle under `/__sdk-test/` are served
 * by the browser's request interception (the server has no such route); every API call goes to the real server.
 */
async function pageOnApiOrigin(): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route(`${server.baseUrl}/__sdk-test/**`, async (route) => {
    const found = asset(new URL(route.request().url()).pathname.replace('/__sdk-test/', ''));
    await (found ? route.fulfill({ status: 200, ...found }) : route.fulfill({ status: 404, body: '' }));
  });
  await page.goto(`${server.baseUrl}/__sdk-test/page.html`);
  await page.waitForFunction(() => window.releasesSdk !== undefined);
  return page;
}

/** Every release id, read with Node's fetch for comparison. */
async function catalogueSize(): Promise<number> {
  let count = 0;
  let cursor = '';
  do {
    const response = await fetch(`${server.baseUrl}/api/v1/release?limit=100${cursor && `&cursor=${cursor}`}`);
    const body = (await response.json()) as { data: { releases: unknown[]; pagination: string } };
    count += body.data.releases.length;
    cursor = encodeURIComponent(body.data.pagination);
  } while (cursor !== '');
  return count;
}

describe('in Chromium, with the browser fetch', () => {
  it('on the API origin: checks health with a key and walks the list across pages', async () => {
    const page = await pageOnApiOrigin();
    const result = await page.evaluate(async (apiKey) => {
      const sdk = window.releasesSdk;
      // No baseUrl: a page's own origin is the default. No fetch: the browser's own.
      const client = new sdk.ReleasesClient({ apiKey });
      const ids: string[] = [];
      let pages = 0;
      for await (const page of client.releases.list({ limit: 40 }).pages()) {
        pages++;
        ids.push(...page.releases.map((release) => release.id));
      }
      const missing = await client.releases.get('rel_nothing').catch((e: unknown) => e);
      return {
        health: await client.health.check(),
        count: ids.length,
        unique: new Set(ids).size,
        pages,
        notFound: missing instanceof sdk.NotFoundError && missing instanceof sdk.ReleasesError,
        version: sdk.VERSION,
      };
    }, key);
    const total = await catalogueSize();
    expect(result).toMatchObject({ health: 'OK', count: total, unique: total, notFound: true });
    expect(result.pages).toBe(Math.ceil(total / 40));
    expect(result.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('on another origin: lists anonymously through CORS, with no header that needs a preflight', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${otherBaseUrl}/page.html`);
    await page.waitForFunction(() => window.releasesSdk !== undefined);
    // The SDK sends no custom header from a browser (x-releases-client would need a preflight that the API's
    // CORS policy does not allow), so an anonymous list is a simple cross-origin GET.
    const result = await page.evaluate(async (baseUrl) => {
      const sdk = window.releasesSdk;
      const anonymous = new sdk.ReleasesClient({ baseUrl });
      const first = await anonymous.releases.list({ limit: 5 });
      const second = await first.getNextPage();
      const facets = await anonymous.facets.list();
      return {
        origin: location.origin,
        first: first.releases.length,
        second: second.releases.length,
        distinct: first.releases[0]?.id !== second.releases[0]?.id,
        banks: facets.vocaloid_banks.length,
      };
    }, server.baseUrl);
    expect(result).toMatchObject({ origin: otherBaseUrl, first: 5, second: 5, distinct: true });
    expect(result.banks).toBeGreaterThan(0);
    await context.close();
  });

  it('on the API origin with the session cookie: sign up, create and list keys, sign out', async () => {
    const page = await pageOnApiOrigin();
    const email = `browser.${Date.now()}@example.com`;
    const result = await page.evaluate(async (email) => {
      const sdk = window.releasesSdk;
      // No token anywhere: the HttpOnly cookie set by signup authenticates what follows.
      const client = new sdk.ReleasesClient({ fetchOptions: { credentials: 'include' } });
      const { user } = await client.auth.signup({ email, password: 'a browser password' });
      const created = await client.keys.create({ name: 'from the browser', expires_in_days: 7 });
      const { keys } = await client.keys.list();
      const session = await client.auth.session();
      const cookieVisibleToScript = document.cookie.includes('releases_session');
      await client.auth.logout();
      const after = await client.auth.session().catch((e: unknown) => e);
      return {
        userId: user.id,
        sessionUser: session.user.id,
        listed: keys.map((k) => k.id),
        createdId: created.id,
        keyShown: created.key.startsWith('rls_'),
        cookieVisibleToScript,
        afterLogout: after instanceof sdk.AuthenticationError ? after.status : String(after),
      };
    }, email);
    expect(result.sessionUser).toBe(result.userId);
    expect(result.listed).toEqual([result.createdId]);
    expect(result).toMatchObject({ keyShown: true, cookieVisibleToScript: false, afterLogout: 401 });
    await page.context().close();
  });

  it('on the API origin with the session cookie: see and end sessions, change the password (issue 18)', async () => {
    const page = await pageOnApiOrigin();
    const email = `browser.lifecycle.${Date.now()}@example.com`;
    // Another session of the same account, signed in from elsewhere (Node), which the page signs out.
    const result = await page.evaluate(
      async ({ email, baseUrl }) => {
        const sdk = window.releasesSdk;
        const client = new sdk.ReleasesClient({ fetchOptions: { credentials: 'include' } });
        await client.auth.signup({ email, password: 'a browser password' });
        // Without the page's cookie (same-origin requests would carry it): only its own token.
        const elsewhere = new sdk.ReleasesClient({ baseUrl, fetchOptions: { credentials: 'omit' } });
        const other = elsewhere.withSession(
          (await elsewhere.auth.login({ email, password: 'a browser password' })).session.token,
        );
        const before = (await client.auth.sessions.list()).sessions;
        await client.auth.changePassword({
          current_password: 'a browser password',
          new_password: 'a new browser password',
        });
        const otherAfterChange = await other.auth.session().catch((e: unknown) => e);
        const again = elsewhere.withSession(
          (await elsewhere.auth.login({ email, password: 'a new browser password' })).session.token,
        );
        await client.auth.sessions.revokeOthers();
        const againAfterRevoke = await again.auth.session().catch((e: unknown) => e);
        const after = (await client.auth.sessions.list()).sessions;
        // Ending the current session signs the page out: the cookie is cleared.
        await client.auth.sessions.revoke(after[0]!.id);
        const signedOut = await client.auth.session().catch((e: unknown) => e);
        return {
          before: before.map((session) => session.current),
          userAgent: before.find((session) => session.current)?.user_agent ?? '',
          otherAfterChange: otherAfterChange instanceof sdk.AuthenticationError,
          againAfterRevoke: againAfterRevoke instanceof sdk.AuthenticationError,
          after: after.map((session) => session.current),
          signedOut: signedOut instanceof sdk.AuthenticationError ? signedOut.status : String(signedOut),
        };
      },
      { email, baseUrl: server.baseUrl },
    );
    expect(result.before.sort()).toEqual([false, true]);
    // The browser's own User-Agent, as the server kept it.
    expect(result.userAgent).toMatch(/Chrom/);
    expect(result).toMatchObject({ otherAfterChange: true, againAfterRevoke: true, after: [true], signedOut: 401 });
    await page.context().close();
  });
});

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Facets } from '../src/api.js';
import { routes } from '../src/routes.js';
import { docsScreenshotsDir, launchChromium, resultsDir, runAxe, screenshot, type AxeViolation } from './browser.js';
import { startServer, type ServerProcess } from './server-process.js';

/**
 * The whole product in a real browser: Chromium (Debian's, else the lockfile's) driven by playwright-core, against the built web app
 * served by the built server on a temporary database. One journey, in order: each step starts where the
 * previous one left the page.
 */

const desktop = { width: 1280, height: 900 };
const phone = { width: 360, height: 780 };
const email = 'mia@example.com'; // a fresh database each run
const password = 'a long enough password';

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const axeReport: Record<string, AxeViolation[]> = {};

beforeAll(async () => {
  // Generous quotas: this test is about the app, not the rate limits, and browsing to the end is many pages.
  server = await startServer({ RATE_LIMIT_ANONYMOUS: '1000', RATE_LIMIT_SESSION: '1000' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: desktop, locale: 'en-US', timezoneId: 'UTC', colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  // Nothing leaves this machine: covers on other hosts fail at once and the placeholder stays.
  await context.route(
    (url) => url.origin !== server.url,
    (route) => route.abort('blockedbyclient'),
  );
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A refused script, style or connection would show here; blocked cover requests do not (they are aborted).
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) {
      pageErrors.push(`console: ${message.text()}`);
    }
  });
});

afterAll(async () => {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'axe.json'), JSON.stringify(axeReport, null, 2));
  await browser?.close();
  await server?.stop();
});

const url = (pathAndQuery: string) => `${server.url}${pathAndQuery}`;

/** axe-core on the page as it is now: no serious or critical violation; everything is kept in the report. */
async function expectAccessible(name: string, target: Page = page): Promise<void> {
  const violations = await runAxe(target);
  axeReport[name] = violations;
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(severe, `${name}: ${JSON.stringify(severe, null, 2)}`).toEqual([]);
}

const articles = (target: Page = page) => target.getByRole('article');
const results = (target: Page = page) => target.getByRole('region', { name: 'Results' });

/** Waits until the list shows the answer for the current URL (not the previous one, dimmed). */
async function listSettled(target: Page = page): Promise<void> {
  await target.waitForFunction(() => {
    const region = document.querySelector('section[aria-busy]');
    return region?.getAttribute('aria-busy') === 'false';
  });
}

/** Filters change the URL in place (pushState), which is not a navigation to wait for: watch the URL itself. */
async function waitForFilter(value: string | null): Promise<void> {
  await page.waitForFunction(
    (expected) => new URLSearchParams(window.location.search).get('vocaloid_banks') === expected,
    value,
  );
}

async function apiJson<T>(pathAndQuery: string): Promise<T> {
  const response = await fetch(url(pathAndQuery));
  expect(response.status, pathAndQuery).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

async function boxes(locator: Locator): Promise<Array<{ x: number; y: number; width: number; height: number }>> {
  return locator.evaluateAll((elements) =>
    elements.map((element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y: y + window.scrollY, width, height };
    }),
  );
}

async function healthStatus(key: string): Promise<number> {
  return (await fetch(url('/api/v1/health'), { headers: { 'x-api-key': key } })).status;
}

describe('the web app in Chromium', () => {
  it('is served by the server: the shell revalidated, hashed assets immutable, client routes, API paths kept', async () => {
    const html = { headers: { accept: 'text/html' } };
    for (const route of ['/', '/signin', '/signup', '/settings/keys']) {
      const response = await fetch(url(route), html);
      expect(response.status, route).toBe(200);
      expect(response.headers.get('cache-control'), route).toBe('no-cache');
      expect(response.headers.get('content-security-policy'), route).toContain("script-src 'self'");
    }
    // Every page of the app, for any client (fetch sends Accept: */*), not only for browsers.
    for (const route of Object.values(routes)) {
      const response = await fetch(url(route));
      expect(response.status, route).toBe(200);
      expect(response.headers.get('content-type'), route).toMatch(/^text\/html/);
    }
    const shell = await (await fetch(url('/'))).text();
    const scripts = [...shell.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const asset of scripts) {
      const response = await fetch(url(asset));
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable');
    }
    const unknownApi = await fetch(url('/api/v1/no-such-thing'), html);
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('shows the sign-in and sign-up pages, accessible at desktop size and at 360 px', async () => {
    for (const [route, name] of [
      ['/signin', 'signin'],
      ['/signup', 'signup'],
    ] as const) {
      await page.goto(url(route));
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectAccessible(name);
      await screenshot(page, `${name}-desktop`);
    }
    const small = await context.newPage();
    await small.setViewportSize(phone);
    for (const route of ['/signin', '/signup']) {
      await small.goto(url(route));
      await small.getByRole('heading', { level: 1 }).waitFor();
      await expectAccessible(`${route.slice(1)} at 360 px`, small);
      await screenshot(small, `${route.slice(1)}-360`);
      // Dark mode has colours of its own: their contrast is checked too.
      await small.emulateMedia({ colorScheme: 'dark' });
      await expectAccessible(`${route.slice(1)} at 360 px, dark`, small);
      await screenshot(small, `${route.slice(1)}-360-dark`);
      await small.emulateMedia({ colorScheme: 'light' });
    }
    await small.close();
  });

  it('signs up; the session cookie is the only credential the browser keeps', async () => {
    await page.goto(url('/signup'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.getByRole('banner').textContent()).toContain(email);

    const cookies = await context.cookies(server.url);
    expect(cookies.map((cookie) => cookie.name)).toEqual(['releases_session']);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate(() => window.localStorage.length + window.sessionStorage.length)).toBe(0);
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  it('browses: the first page of releases as cards, from the first response', async () => {
    const first = await apiJson<{ releases: Array<{ title: string }> }>('/api/v1/release');
    await articles().first().waitFor();
    await listSettled();
    expect(await articles().count()).toBe(first.releases.length);
    const headings = await articles().evaluateAll((cards) =>
      cards.map((card) => card.querySelector('h1, h2, h3, h4')?.textContent),
    );
    expect(headings).toEqual(first.releases.map((release) => release.title));
    // Each card is named by its heading, and a cover box has the same size with or without an image.
    const coverSizes = await page
      .locator('article .cover')
      .evaluateAll((covers) => covers.map((cover) => `${cover.clientWidth}x${cover.clientHeight}`));
    expect(new Set(coverSizes)).toEqual(new Set(['96x96']));
    await expect.poll(() => page.getByRole('article', { name: first.releases[0]!.title }).count()).toBe(1);
    await expectAccessible('releases');
    await screenshot(page, 'releases-desktop');
  });

  it('works from the keyboard, with a visible focus', async () => {
    await page.goto(url('/'));
    await listSettled();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((element) => element === document.activeElement)).toBe(true);
    const outline = await skip.evaluate((element) => getComputedStyle(element).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('filters (keyboard), loads more to the end without moving the cards shown, and goes Back', async () => {
    const facets = await apiJson<Facets>('/api/v1/facets');
    // The most common voice bank that still fits a few pages: it needs "Load more" several times.
    const bank = facets.vocaloid_banks
      .filter((f) => f.count > 20 && f.count <= 150)
      .sort((a, b) => b.count - a.count)[0]!;
    expect(bank).toBeDefined();

    // A fresh entry, so that Back below returns to the unfiltered list (the skip link above added `#main`).
    await page.goto(url('/'));
    await listSettled();
    const box = page
      .getByRole('group', { name: 'Voice banks' })
      .getByRole('checkbox', { name: bank.value, exact: true });
    await box.focus();
    await page.keyboard.press('Space');
    await waitForFilter(bank.value);
    expect(await box.isChecked()).toBe(true);
    await listSettled();
    expect(await articles().count()).toBe(20);

    let shown = 20;
    while (await page.getByRole('button', { name: 'Load more' }).isVisible()) {
      const before = await boxes(articles());
      await page.getByRole('button', { name: 'Load more' }).click();
      await page.waitForFunction((count) => document.querySelectorAll('article').length > count, shown);
      await page.waitForFunction(
        () => !document.querySelector('section[aria-busy] button.load-more[aria-disabled="true"]'),
      );
      shown = await articles().count();
      // Cards already shown stay exactly where they were.
      expect((await boxes(articles())).slice(0, before.length)).toEqual(before);
    }
    expect(shown).toBe(bank.count);
    const vocals = await articles().evaluateAll((cards) => cards.map((card) => card.textContent ?? ''));
    expect(vocals.every((text) => text.includes(bank.value))).toBe(true);
    expect(await results().getByRole('status').textContent()).toBe(`${bank.count} releases shown.`);

    await page.goBack();
    await waitForFilter(null);
    expect(page.url()).toBe(url('/'));
    await listSettled();
    expect(await box.isChecked()).toBe(false);
    expect(await articles().count()).toBe(20);
    const first = await apiJson<{ releases: Array<{ title: string }> }>('/api/v1/release');
    expect(await articles().first().getByRole('heading').textContent()).toBe(first.releases[0]!.title);

    await page.goForward();
    await waitForFilter(bank.value);
    await listSettled();
    expect(await box.isChecked()).toBe(true);
  });

  it('looks right in dark mode and at 360 px', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(url('/'));
    await listSettled();
    await expectAccessible('releases, dark');
    await screenshot(page, 'releases-desktop-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    const small = await context.newPage();
    await small.setViewportSize(phone);
    await small.goto(url('/'));
    await articles(small).first().waitFor();
    await listSettled(small);
    // Nothing is wider than the screen.
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
    await expectAccessible('releases at 360 px', small);
    await screenshot(small, 'releases-360');
    await small.getByRole('button', { name: /^Show/ }).click();
    await small.getByRole('group', { name: 'Voice banks' }).waitFor();
    await expectAccessible('releases at 360 px, filters open', small);
    await small.close();
  });

  let key = '';

  it('creates a key: shown once with Copy, it works against /api/v1/health', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(url('/settings/keys'));
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();
    await page.getByLabel('Name').fill('e2e laptop');
    // Expiry is a choice of presets (issue 18): the control keeps its SPEC §9 name.
    await page.getByLabel('Expires in (days)').selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();

    const secret = page.locator('code.secret');
    await secret.waitFor();
    key = (await secret.textContent()) ?? '';
    expect(key).toMatch(/^rls_[0-9A-Za-z]{38}$/);
    expect(await page.getByText('you will not see it again').count()).toBe(1);
    expect(await page.locator('pre code').textContent()).toBe(`curl -H 'x-api-key: ${key}' ${url('/api/v1/health')}`);

    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const health = await fetch(url('/api/v1/health'), { headers: { 'x-api-key': key } });
    expect(health.status).toBe(200);
    expect(await health.json()).toBe('OK');

    await expectAccessible('keys, new key shown');
    await screenshot(page, 'keys-desktop', { fullPage: true });
    const small = await context.newPage();
    await small.setViewportSize(phone);
    await small.goto(url('/settings/keys'));
    await small.getByRole('heading', { name: 'e2e laptop' }).waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
    await expectAccessible('keys at 360 px', small);
    await screenshot(small, 'keys-360', { fullPage: true });
    await small.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible('keys at 360 px, dark', small);
    await screenshot(small, 'keys-360-dark', { fullPage: true });
    await small.close();
  });

  it('forgets the key on reload; the list shows its name, start, dates and status', async () => {
    await page.reload();
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'e2e laptop' }) });
    await item.waitFor();
    expect(await page.content()).not.toContain(key);
    const text = (await item.textContent()) ?? '';
    expect(text).toContain(`${key.slice(0, 12)}…`);
    expect(text).toMatch(/Created.*Last used.*Expires.*Status\s*Active/);
  });

  it('revokes the key behind a confirmation dialog; the API refuses it at once', async () => {
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'e2e laptop' }) });
    const revoke = item.getByRole('button', { name: 'Revoke' });

    // Escape cancels, and the focus goes back to the button that opened the dialog.
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === document.activeElement)).toBe(
      true,
    );
    await expectAccessible('keys, revoke dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await revoke.evaluate((b) => b === document.activeElement)).toBe(true);
    expect(await healthStatus(key)).toBe(200);

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await item.getByText('Revoked').waitFor();
    expect(await item.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    expect(await healthStatus(key)).toBe(401);
  });

  it('signs out; the keys screen then sends to sign in, and back after', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    expect(await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.status))).toBe(401);
    expect(await context.cookies(server.url)).toEqual([]);

    await page.goto(url('/settings/keys'));
    await page.waitForURL(url(`/signin?next=${encodeURIComponent('/settings/keys')}`));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toBe(
      'The email or password is not right.',
    );
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/settings/keys'));
    // The key was revoked above: since issue 18 it is listed folded under the revoked keys' own heading.
    await page.getByRole('heading', { name: 'Revoked and expired keys' }).waitFor();
    await page.getByText(/Show the 1 key that no longer works/).click();
    await page.getByRole('heading', { name: 'e2e laptop' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
  });

  it('ran without a script error or a Content-Security-Policy refusal', () => {
    expect(pageErrors).toEqual([]);
    const summary = Object.entries(axeReport).map(
      ([name, violations]) => `${name}: ${violations.map((v) => `${v.id} (${v.impact})`).join(', ') || 'none'}`,
    );
    console.log(`axe-core violations by page:\n  ${summary.join('\n  ')}`);
  });
});

/** UPDATE_SCREENSHOTS=1 refreshes the set committed under docs/ (shown in the README). */
afterAll(() => {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(docsScreenshotsDir, { recursive: true });
  copyFileSync(
    path.join(resultsDir, 'screenshots', 'releases-desktop.png'),
    path.join(docsScreenshotsDir, 'releases.png'),
  );
  copyFileSync(path.join(resultsDir, 'screenshots', 'keys-desktop.png'), path.join(docsScreenshotsDir, 'keys.png'));
});

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Facets, Release } from '../src/api.js';
import {
  auditEverywhere,
  desktopViewport,
  docsScreenshotsDir,
  launchChromium,
  resultsDir,
  screenshot,
  severe,
  type AxeViolation,
} from './browser.js';
import { startServer, type ServerProcess } from './server-process.js';

/**
 * Finding releases in Chromium against the built server: the list's requests as the person acts (debounced),
 * the chips, a release's own page and Back to the list as it was (pages, scroll position, focus), Back after
 * "Load more" from outside the app, a bad value in a hand-edited address, and a first paint that does not
 * jump; a search typed (one request), shared, reloaded and undone with Back, a Japanese one, and a search with
 * a filter and its counts in context. A second server with a tiny anonymous quota shows the 429 countdown.
 */

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const axeReport: Record<string, AxeViolation[]> = {};
/** Every API request the page made, in order (path and query). */
const requests: string[] = [];

beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_ANONYMOUS: '5000', RATE_LIMIT_SESSION: '5000' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: desktopViewport, locale: 'en-US', timezoneId: 'UTC' });
  await context.route(
    (url) => url.origin !== server.url,
    (route) => route.abort('blockedbyclient'),
  );
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) requests.push(`${url.pathname}${url.search}`);
  });
});

afterAll(async () => {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'axe-releases.json'), JSON.stringify(axeReport, null, 2));
  await browser?.close();
  await server?.stop();
});

const url = (pathAndQuery: string) => `${server.url}${pathAndQuery}`;
const articles = (target: Page = page) => target.getByRole('article');

async function listSettled(target: Page = page): Promise<void> {
  await target.waitForFunction(
    () => document.querySelector('section[aria-busy]')?.getAttribute('aria-busy') === 'false',
  );
}

async function apiJson<T>(pathAndQuery: string): Promise<T> {
  const response = await fetch(url(pathAndQuery));
  expect(response.status, pathAndQuery).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

async function audit(name: string, prepare?: (page: Page) => Promise<void>): Promise<void> {
  const found = await auditEverywhere(page, name, prepare);
  Object.assign(axeReport, found);
  const bad = Object.entries(found).flatMap(([where, violations]) => severe(violations).map((v) => ({ where, ...v })));
  expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
}

const releaseListRequests = () => requests.filter((r) => r.startsWith('/api/v1/release?') || r === '/api/v1/release');
const facetsRequests = () => requests.filter((r) => r.startsWith('/api/v1/facets'));

const searchBox = (target: Page = page) => target.getByRole('searchbox', { name: 'Search' });
/** The number of matches above the list (an aria-live region). */
const matchCount = (target: Page = page) => target.locator('.results-count');

/** `208 releases`, `1 release`, `No releases match`: what the page says for a total, in en-US. */
function countText(total: number): string {
  if (total === 0) return 'No releases match';
  return `${total.toLocaleString('en-US')} ${total === 1 ? 'release' : 'releases'}`;
}

/** The page's checkboxes in a filter group, by name, with the count each shows. */
async function shownCounts(group: string): Promise<Record<string, number>> {
  return page.getByRole('group', { name: group }).evaluate((fieldset) => {
    const counts: Record<string, number> = {};
    for (const option of fieldset.querySelectorAll('.facet-option')) {
      const name = option.querySelector('.facet-name')?.textContent ?? '';
      counts[name] = Number(option.querySelector('.facet-count')?.textContent);
    }
    return counts;
  });
}

describe('finding releases in Chromium', () => {
  it('paints the first page without moving anything once the answers arrive', async () => {
    await page.goto(url('/'));
    await page.evaluate(() => {
      (window as unknown as { shifts: number }).shifts = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
          if (!entry.hadRecentInput) (window as unknown as { shifts: number }).shifts += entry.value;
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await articles().first().waitFor();
    await listSettled();
    await page.getByRole('group', { name: 'Voice banks' }).getByRole('checkbox').first().waitFor();
    await page.waitForTimeout(300);
    const shifts = await page.evaluate(() => (window as unknown as { shifts: number }).shifts);
    // Web Vitals' "good" cumulative layout shift is below 0.1; the placeholders keep this page well under it.
    expect(shifts).toBeLessThan(0.05);
  });

  it('ticking several boxes in a row is one request; the chips show them and remove one each', async () => {
    const facets = await apiJson<Facets>('/api/v1/facets');
    const genres = facets.genres.slice(0, 4).map((f) => f.value);
    await page.goto(url('/'));
    await listSettled();
    const before = releaseListRequests().length;
    const group = page.getByRole('group', { name: 'Genres' });
    for (const genre of genres) await group.getByRole('checkbox', { name: genre, exact: true }).check();
    await page.waitForFunction(
      (n) => new URLSearchParams(location.search).get('genres')?.split(',').length === n,
      genres.length,
    );
    await listSettled();
    const made = releaseListRequests().slice(before);
    expect(made, made.join('\n')).toHaveLength(1);
    expect(new URL(url(made[0]!)).searchParams.get('genres')).toBe(genres.join(','));

    const chips = page.getByRole('list', { name: 'Chosen filters' }).getByRole('button');
    expect(await chips.count()).toBe(genres.length);
    await expect.poll(() => chips.first().textContent()).toContain(genres[0]);
    await audit('releases with chips');
    await screenshot(page, 'releases-filtered-desktop');
    await chips.filter({ hasText: genres[1]! }).click();
    await page.waitForFunction(
      (removed) => !new URLSearchParams(location.search).get('genres')?.split(',').includes(removed),
      genres[1]!,
    );
    await listSettled();
    expect(await chips.count()).toBe(genres.length - 1);
    expect(
      await page
        .getByRole('group', { name: 'Genres' })
        .getByRole('checkbox', { name: genres[1]!, exact: true })
        .isChecked(),
    ).toBe(false);
    const matching = await apiJson<{ releases: Release[] }>(
      `/api/v1/release?genres=${[genres[0], genres[2], genres[3]].map((g) => encodeURIComponent(g!)).join(',')}`,
    );
    expect(await articles().first().getByRole('heading').textContent()).toBe(matching.releases[0]?.title);
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.waitForURL(url('/'));
  });

  it('drops a bad value from a hand-edited address with a notice, and shows the rest', async () => {
    await page.goto(url('/?languages=ja,xx-bad&genres=rock'));
    const notice = page.getByRole('alert').filter({ hasText: 'xx-bad' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('is not a language tag');
    await page.waitForFunction(() => location.search === '?genres=rock&languages=ja');
    await listSettled();
    expect(await articles().count()).toBeGreaterThan(0);
    expect(requests.some((r) => r.includes('xx-bad'))).toBe(false);
    await audit('releases, bad address notice');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await notice.count()).toBe(0);
  });

  let opened = '';

  it("opens a release's page with all its fields, and Back restores the list, its scroll position and focus", async () => {
    await page.goto(url('/'));
    await listSettled();
    for (let n = 0; n < 2; n++) {
      const count = await articles().count();
      await page.getByRole('button', { name: 'Load more' }).click();
      await page.waitForFunction((c) => document.querySelectorAll('article').length > c, count);
      await listSettled();
    }
    expect(await articles().count()).toBe(60);
    const target = articles().nth(45);
    opened = (await target.getByRole('heading').textContent()) ?? '';
    await target.scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(1000);
    const listRequests = releaseListRequests().length;

    await target.getByRole('link', { name: opened, exact: true }).click();
    await page.waitForURL(/\/releases\/rel_/);
    const heading = page.getByRole('heading', { level: 1, name: opened });
    await heading.waitFor();
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const release = await apiJson<Release>(`/api/v1/release/${id}`);
    const detail = page.getByRole('article', { name: release.title });
    const text = (await detail.textContent()) ?? '';
    for (const value of [release.artist, release.id, ...release.vocaloid_banks, ...release.genres]) {
      expect(text).toContain(value);
    }
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await audit('release page');
    await screenshot(page, 'release-desktop', { fullPage: true });

    await page.getByRole('link', { name: /Back to the results/ }).click();
    await page.waitForURL(url('/'));
    expect(await articles().count()).toBe(60);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(scrolled - 3);
    expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrolled)).toBeLessThanOrEqual(2);
    // The list came from memory, not from the server again, and the focus is back on the release opened.
    expect(releaseListRequests().length).toBe(listRequests);
    expect(
      await page.evaluate(() => document.activeElement?.closest('article')?.querySelector('h2')?.textContent),
    ).toBe(opened);
  });

  it('Back after "Load more" from outside the app returns to the same releases at the same place', async () => {
    const scrolled = await page.evaluate(() => window.scrollY);
    // Leaving the app from where the list is scrolled to (a typed address; a click on a header link would
    // scroll up to it first).
    await page.goto(url('/docs'));
    await page.goBack();
    await page.waitForURL(url('/'));
    await listSettled();
    await expect.poll(() => articles().count()).toBe(60);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(scrolled - 3);
    expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrolled)).toBeLessThanOrEqual(2);
  });

  it('a release opened from a shared link goes to all releases; an unknown one says so', async () => {
    const first = await apiJson<{ releases: Release[] }>('/api/v1/release');
    await page.goto(url(`/releases/${first.releases[0]!.id}`));
    await page.getByRole('heading', { level: 1, name: first.releases[0]!.title }).waitFor();
    await page.getByRole('link', { name: /All releases/ }).click();
    await page.waitForURL(url('/'));
    await page.goto(url('/releases/rel_doesnotexist'));
    await page.getByRole('heading', { level: 1, name: 'Release not found' }).waitFor();
  });

  it('typing a search is one request; the list narrows, says how many match, and Back, reload and Forward keep it', async () => {
    const answer = await apiJson<{ releases: Release[] }>('/api/v1/release?q=melt');
    const facets = await apiJson<Facets>('/api/v1/facets?q=melt');
    const everything = await apiJson<Facets>('/api/v1/facets');
    expect(answer.releases.length).toBeGreaterThan(0);
    expect(facets.total).toBeLessThan(everything.total);

    await page.goto(url('/'));
    await listSettled();
    await expect.poll(() => matchCount().textContent()).toBe(countText(everything.total));
    const [listBefore, facetsBefore] = [releaseListRequests().length, facetsRequests().length];

    await searchBox().pressSequentially('melt', { delay: 60 });
    await page.waitForFunction(() => location.search === '?q=melt');
    await listSettled();
    await expect.poll(() => matchCount().textContent()).toBe(countText(facets.total));
    // Four letters, one request for the list and one for the counts.
    const made = releaseListRequests().slice(listBefore);
    expect(made, made.join('\n')).toHaveLength(1);
    expect(new URL(url(made[0]!)).searchParams.get('q')).toBe('melt');
    expect(facetsRequests().slice(facetsBefore)).toEqual(['/api/v1/facets?q=melt']);
    expect(await articles().getByRole('heading').allTextContents()).toEqual(answer.releases.map((r) => r.title));
    expect(await page.getByRole('combobox', { name: 'Sort' }).inputValue()).toBe('relevance');
    await audit('releases, a search');

    // A reload (or the shared address) shows the same search.
    await page.reload();
    await listSettled();
    expect(await searchBox().inputValue()).toBe('melt');
    expect(await articles().getByRole('heading').allTextContents()).toEqual(answer.releases.map((r) => r.title));

    // Back: before the search, in one step however many letters it took.
    await page.goBack();
    await page.waitForURL(url('/'));
    await listSettled();
    expect(await searchBox().inputValue()).toBe('');
    await expect.poll(() => matchCount().textContent()).toBe(countText(everything.total));
    await page.goForward();
    await page.waitForURL(url('/?q=melt'));
    await listSettled();
    expect(await searchBox().inputValue()).toBe('melt');
    await expect.poll(() => matchCount().textContent()).toBe(countText(facets.total));
  });

  it('finds Japanese titles by any part of them, from one character up', async () => {
    const answer = await apiJson<{ releases: Release[] }>(`/api/v1/release?q=${encodeURIComponent('初音')}`);
    const facets = await apiJson<Facets>(`/api/v1/facets?q=${encodeURIComponent('初音')}`);
    expect(answer.releases.length).toBeGreaterThan(0);
    for (const release of answer.releases) expect(`${release.title} ${release.artist}`).toContain('初音');

    await page.goto(url('/'));
    await listSettled();
    await searchBox().fill('初音');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === '初音');
    await listSettled();
    await expect.poll(() => matchCount().textContent()).toBe(countText(facets.total));
    expect(await articles().getByRole('heading').allTextContents()).toEqual(answer.releases.map((r) => r.title));
    expect(new URL(page.url()).search).toBe(`?q=${encodeURIComponent('初音')}`);
  });

  it('a search with a filter: counts in context beside each value, the matches, and the chosen value as a chip', async () => {
    const search = await apiJson<Facets>('/api/v1/facets?q=miku');
    const genre = search.genres.find((g) => g.count > 0 && g.count < search.total)?.value;
    expect(genre, 'a genre that narrows the search for miku').toBeDefined();
    const both = `q=miku&genres=${encodeURIComponent(genre!)}`;
    const inContext = await apiJson<Facets>(`/api/v1/facets?${both}`);
    const answer = await apiJson<{ releases: Release[] }>(`/api/v1/release?${both}`);
    const everything = await apiJson<Facets>('/api/v1/facets');

    await page.goto(url('/?q=miku'));
    await listSettled();
    await expect.poll(() => matchCount().textContent()).toBe(countText(search.total));
    const listBefore = releaseListRequests().length;
    await page.getByRole('group', { name: 'Genres' }).getByRole('checkbox', { name: genre!, exact: true }).check();
    await page.waitForFunction((query) => location.search === `?${query}`, both);
    await listSettled();
    await expect.poll(() => matchCount().textContent()).toBe(countText(inContext.total));
    expect(releaseListRequests().slice(listBefore)).toHaveLength(1);
    expect(await articles().getByRole('heading').allTextContents()).toEqual(answer.releases.map((r) => r.title));
    expect(await page.getByRole('list', { name: 'Chosen filters' }).getByRole('button').allTextContents()).toEqual([
      expect.stringContaining(genre!),
    ]);

    // Every value of the catalogue is still offered, counted over the search and the other filters.
    await expect
      .poll(async () => (await shownCounts('Voice banks'))[inContext.vocaloid_banks[0]!.value])
      .toBe(inContext.vocaloid_banks[0]!.count);
    const banks = await shownCounts('Voice banks');
    expect(Object.keys(banks)).toHaveLength(
      new Set([...everything.vocaloid_banks, ...inContext.vocaloid_banks].map((b) => b.value)).size,
    );
    for (const { value } of everything.vocaloid_banks) {
      expect(banks[value], value).toBe(inContext.vocaloid_banks.find((b) => b.value === value)?.count ?? 0);
    }
    // Genres are counted without the genre filter itself (values within one filter are OR-ed).
    const genres = await shownCounts('Genres');
    for (const { value, count } of inContext.genres) expect(genres[value], value).toBe(count);

    await audit('releases, a search with a filter', async (narrow) => {
      await narrow.getByRole('button', { name: /Show filters/ }).click();
    });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'releases-search-desktop');
  });

  it('ran without a script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

describe('a 429 in Chromium', () => {
  let limited: ServerProcess;
  afterAll(async () => limited?.stop());

  it('says what happened and counts down to its own retry, which then shows the list', async () => {
    limited = await startServer({ RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW: '6s' });
    const other = await browser.newContext({ viewport: desktopViewport, locale: 'en-US' });
    const tab = await other.newPage();
    await tab.route(
      (u) => u.origin !== limited.url,
      (route) => route.abort('blockedbyclient'),
    );
    // Spend the quota first, so the page's own requests are refused.
    for (let n = 0; n < 3; n++) await fetch(`${limited.url}/api/v1/facets`);
    await tab.goto(`${limited.url}/`);
    const alert = tab.getByRole('alert').filter({ hasText: 'Trying again in' }).first();
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/too many requests.*Trying again in \d+ s/s);
    expect(await tab.getByText('Loading releases…').count()).toBe(0);
    const first = Number(/(\d+) s/.exec((await alert.textContent()) ?? '')?.[1]);
    await expect
      .poll(async () => Number(/(\d+) s/.exec((await alert.textContent().catch(() => '')) ?? '')?.[1] ?? 0))
      .toBeLessThan(first);
    Object.assign(axeReport, await auditEverywhere(tab, 'releases, 429 countdown'));
    // Without anyone pressing anything, the retry after the wait shows the releases.
    await tab.getByRole('article').first().waitFor({ timeout: 20_000 });
    await other.close();
  });
});

/** UPDATE_SCREENSHOTS=1 refreshes the ones committed under docs/ (shown in the README). */
afterAll(() => {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(docsScreenshotsDir, { recursive: true });
  copyFileSync(
    path.join(resultsDir, 'screenshots', 'releases-search-desktop.png'),
    path.join(docsScreenshotsDir, 'search-results.png'),
  );
  copyFileSync(
    path.join(resultsDir, 'screenshots', 'release-desktop.png'),
    path.join(docsScreenshotsDir, 'release.png'),
  );
});

import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

// Debian's Chromium when installed, else the lockfile's: one launch for this suite and the SDK's browser test.
export { launchChromium } from '@releases/test-chromium';

const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Written by each run, git-ignored. */
export const resultsDir = path.join(webRoot, 'test-results');
/** The committed set shown in the README, rewritten only when asked (UPDATE_SCREENSHOTS=1). */
export const docsScreenshotsDir = path.resolve(webRoot, '..', '..', 'docs', 'screenshots');

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(path.join(resultsDir, 'screenshots'), { recursive: true });
  await page.screenshot({ path: path.join(resultsDir, 'screenshots', `${name}.png`), ...options });
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string | undefined }>;
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page. It is evaluated through the DevTools protocol, not added as a `<script>`, so
 * the page's real Content-Security-Policy stays in force while it runs.
 */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> };
    };
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target: target.map(String), failureSummary })),
    }));
  });
}

export const desktopViewport = { width: 1280, height: 900 };
const phoneViewport = { width: 360, height: 780 };

/** Serious and critical axe violations fail a run; every violation is kept in the report. */
export function severe(violations: AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The page as it is now, checked by axe-core in light and dark at its current size, then at 360 px in both
 * (after `prepare` brings the narrow page back to the same state), where nothing may be wider than the
 * screen. Returns each run's violations by name, for the report; the caller fails on the severe ones.
 */
export async function auditEverywhere(
  page: Page,
  name: string,
  prepare: (page: Page) => Promise<void> = async () => undefined,
): Promise<Record<string, AxeViolation[]>> {
  const report: Record<string, AxeViolation[]> = {};
  const size = page.viewportSize() ?? desktopViewport;
  const bothSchemes = async (label: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      report[`${name}, ${label}, ${scheme}`] = await runAxe(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  await bothSchemes(`${size.width} px`);
  await page.setViewportSize(phoneViewport);
  await prepare(page);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  report[`${name}, 360 px, width`] =
    width > phoneViewport.width
      ? [{ id: 'horizontal-scroll', impact: 'serious', help: `the page is ${width} px wide`, nodes: [] }]
      : [];
  await bothSchemes('360 px');
  await page.setViewportSize(size);
  return report;
}

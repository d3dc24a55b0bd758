import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** The budget for the first page's JavaScript, gzipped. */
const budgetBytes = 80 * 1024;

/**
 * The JavaScript a browser fetches to show the first page: the module scripts and modulepreloads that
 * index.html names, and every chunk they import statically (followed, in case a build splits them).
 */
function firstPageScripts(): string[] {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const named = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\brel="modulepreload"[^>]*\bhref)="([^"]+\.js)"/g)];
  const queue = named.map((match) => match[1]!);
  const seen = new Set<string>();
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const code = readFileSync(path.join(dist, url), 'utf8');
    for (const match of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},*\s]+from\s*)?["']\.\/([^"']+\.js)["']/g)) {
      queue.push(path.posix.join(path.posix.dirname(url), match[1]!));
    }
  }
  return [...seen];
}

describe('the first page', () => {
  it(`loads at most ${budgetBytes / 1024} KB of JavaScript, gzipped`, () => {
    if (!existsSync(path.join(dist, 'index.html'))) throw new Error('build the web app first (pnpm build)');
    const scripts = firstPageScripts();
    expect(scripts.length).toBeGreaterThan(0);
    let raw = 0;
    let gzipped = 0;
    for (const script of scripts) {
      const bytes = readFileSync(path.join(dist, script));
      raw += bytes.length;
      gzipped += gzipSync(bytes, { level: 9 }).length;
    }
    console.log(
      `first page JavaScript: ${scripts.length} file(s), ${(raw / 1024).toFixed(1)} KB raw, ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${budgetBytes / 1024} KB)`,
    );
    expect(gzipped).toBeLessThanOrEqual(budgetBytes);
  });
});

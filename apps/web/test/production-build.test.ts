import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vite = path.join(webRoot, 'node_modules', '.bin', 'vite');
const folder = mkdtempSync(path.join(tmpdir(), 'releases-web-build-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** `vite build` into a folder of its own, with this NODE_ENV in the environment (as `pnpm start` passes it on). */
async function buildWith(nodeEnv: string | undefined): Promise<string> {
  const outDir = path.join(folder, nodeEnv ?? 'unset');
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (nodeEnv === undefined) delete env.NODE_ENV;
  else env.NODE_ENV = nodeEnv;
  await promisify(execFile)(vite, ['build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: webRoot,
    env,
  });
  const assets = path.join(outDir, 'assets');
  return readdirSync(assets)
    .filter((file) => file.endsWith('.js'))
    .map((file) => readFileSync(path.join(assets, file), 'utf8'))
    .join('\n');
}

describe('vite build', () => {
  it.each(['development', 'test', undefined])(
    'makes React’s production build whatever NODE_ENV says (%s)',
    { timeout: 120_000 },
    async (nodeEnv) => {
      const code = await buildWith(nodeEnv);
      // The production build's error codes, and none of the development build's JSX calls or checks.
      expect(code).toContain('Minified React error');
      expect(code).not.toContain('jsxDEV');
      expect(code).not.toContain('validateDOMNesting');
    },
  );
});

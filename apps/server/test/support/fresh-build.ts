import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const contractRoot = path.resolve(serverRoot, '../../packages/contract');

function newestSource(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Builds a package when its `dist/` is missing or older than any of its sources (tsc rewrites every file). */
function ensureBuilt(root: string, output: string): void {
  const built = path.join(root, 'dist', output);
  const stale = !existsSync(built) || statSync(built).mtimeMs < newestSource(path.join(root, 'src'));
  if (!stale) return;
  console.warn(`${path.relative(process.cwd(), built)} is older than its sources: building it first`);
  execFileSync(process.execPath, [tscBin(), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
}

function tscBin(): string {
  return path.join(serverRoot, 'node_modules', 'typescript', 'bin', 'tsc');
}

/**
 * Vitest global setup. Tests that start the server or the CLI run `dist/` as users do; a `dist/` older than
 * the sources would test yesterday's code and pass. `pnpm test` builds first (turbo), so this only builds
 * when someone runs vitest straight after an edit.
 */
export default function setup(): void {
  ensureBuilt(contractRoot, 'index.js');
  ensureBuilt(serverRoot, 'main.js');
}

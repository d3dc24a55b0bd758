import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const serverMain = path.join(repoRoot, 'apps', 'server', 'dist', 'main.js');
const webIndex = path.join(repoRoot, 'apps', 'web', 'dist', 'index.html');

export interface ServerProcess {
  url: string;
  /** What the process wrote to stderr so far (for failure messages). */
  stderr: () => string;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * The product as users run it: the built server (`node apps/server/dist/main.js`) serving the built web app,
 * on a temporary SQLite database that its first start fills with the sample catalogue.
 */
export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  for (const [file, what] of [
    [serverMain, 'the server'],
    [webIndex, 'the web app'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${what} is not built (${file} is missing): run pnpm build first`);
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'releases-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [serverMain], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      // A cheap password hash: tests must not depend on how fast the machine is.
      PASSWORD_HASH_COST: '10',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: `file:${path.join(folder, 'releases.db')}`,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };

  // Ready when /readyz answers: migrations ran and the catalogue is loaded (seeding happens before listening).
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, stderr: () => stderr, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`the server did not start:\n${stderr}`);
}

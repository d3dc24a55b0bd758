import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const serverDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../apps/server/dist');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface LiveServer {
  baseUrl: string;
  /** Runs `pnpm cli` against this server's database; returns stdout. */
  cli(...args: string[]): Promise<string>;
  createKey(...extra: string[]): Promise<{ id: string; key: string }>;
  stop(): Promise<void>;
}

/**
 * The real server, built, as users run it: its own process, its own SQLite file with the sample catalogue,
 * a free loopback port. Needs `apps/server/dist` (turbo builds it before these tests).
 */
export async function startLiveServer(env: Record<string, string> = {}): Promise<LiveServer> {
  if (!existsSync(path.join(serverDist, 'main.js'))) throw new Error('build the server first: pnpm build');
  const folder = mkdtempSync(path.join(tmpdir(), 'releases-client-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const serverEnv = {
    ...process.env,
    DATABASE_URL: `file:${path.join(folder, 'db.sqlite')}`,
    NODE_ENV: 'test',
    // A cheap password hash: tests must not depend on how fast the machine is.
    PASSWORD_HASH_COST: '10',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_API_KEY: '100000',
    RATE_LIMIT_SESSION: '100000',
    // Sign-ups and logins are 10 a minute per IP by default; the account tests make more from 127.0.0.1.
    RATE_LIMIT_AUTH: '100000',
    ...env,
  };
  const cli = async (...args: string[]) =>
    (await run(process.execPath, [path.join(serverDist, 'cli', 'main.js'), ...args], { env: serverEnv })).stdout;
  await cli('seed', '--sample');
  const child: ChildProcess = spawn(process.execPath, [path.join(serverDist, 'main.js')], {
    env: serverEnv,
    stdio: 'ignore',
  });
  // Ready when the port accepts connections (the server listens only once migrated). Not by requesting
  // /livez: the server counts probes against the anonymous quota, which a rate-limit test must find whole.
  for (let i = 0; ; i++) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (listening) break;
    if (i > 200 || child.exitCode !== null) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl,
    cli,
    async createKey(...extra) {
      return JSON.parse(await cli('keys', 'create', '--name', 'client-test', '--json', ...extra)) as {
        id: string;
        key: string;
      };
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

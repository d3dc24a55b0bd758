import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverRoot } from '../../src/config.js';

/** The built server, run as users run it (`node dist/main.js`). */
export const serverMain = path.join(serverRoot, 'dist', 'main.js');

export function requireBuild(): void {
  if (!existsSync(serverMain)) throw new Error('build the server first (pnpm build): it is tested as users run it');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGKILL if still running; for cleanup. */
  kill(): Promise<void>;
}

/** Spawns `node dist/main.js` on `env.PORT` or a free port; does not wait for it to listen. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The command line docs/deploy.md gives (and `pnpm start` uses): the young generation never shrinks when idle.
  const child = spawn(process.execPath, ['--min-semi-space-size=16', serverMain], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      // A cheap password hash where the configuration allows it (not in production): tests sign in often and
      // must not depend on how fast the machine is.
      ...(env.NODE_ENV === 'production' ? {} : { PASSWORD_HASH_COST: '10' }),
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    url,
    port,
    stdout: () => out,
    stderr: () => err,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Waits (bounded) until the process answers /livez; throws with its stderr if it exits or never does. */
export async function waitUntilListening(server: ServerProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited (${server.child.exitCode}): ${server.stderr()}`);
    try {
      if ((await fetch(`${server.url}/livez`, { signal: AbortSignal.timeout(1_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`server did not listen within ${timeoutMs} ms: ${server.stderr()}`);
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await spawnServer(env);
  try {
    await waitUntilListening(server);
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}

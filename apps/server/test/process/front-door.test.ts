import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverRoot } from '../../src/config.js';
import { freePort, requireBuild } from '../support/process-harness.js';

/**
 * The front door as a new user meets it (issue 29 #7): `pnpm start` from the repository's root, the README's
 * command-line steps as written, its search examples on the sample catalogue, and Ctrl-C.
 */
const repositoryRoot = path.resolve(serverRoot, '..', '..');
const readme = readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
const run = promisify(execFile);

let folder: string;
let port: number;
let baseUrl: string;
let output = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let child: ReturnType<typeof spawn>;
let reading: NodeJS.Timeout;

beforeAll(async () => {
  requireBuild();
  folder = mkdtempSync(path.join(tmpdir(), 'releases-front-door-'));
  port = await freePort();
  baseUrl = `http://localhost:${port}`;
  // As a user runs it, in a process group of its own, so that Ctrl-C (SIGINT to the group) reaches pnpm and
  // everything it started, as a terminal sends it.
  // stdout and stderr into one file, as a terminal shows them: in the order they were written.
  const log = path.join(folder, 'output.log');
  const fd = openSync(log, 'w');
  child = spawn('pnpm', ['start'], {
    cwd: repositoryRoot,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      PUBLIC_URL: baseUrl,
      DATABASE_URL: `file:${path.join(folder, 'releases.db')}`,
      LOG_LEVEL: 'info',
    },
  });
  closeSync(fd);
  const read = () => (output = readFileSync(log, 'utf8'));
  reading = setInterval(read, 50);
  exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = Date.now();
  while (!output.includes(`Open ${baseUrl}`)) {
    if (Date.now() - started > 120_000) throw new Error(`pnpm start did not open ${baseUrl}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 150_000);

afterAll(async () => {
  clearInterval(reading);
  if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

/** The README's `pnpm cli` lines run as `pnpm cli` does (`node apps/server/dist/cli/main.js`), on this database. */
async function cli(line: string): Promise<string> {
  const env = { ...process.env, DATABASE_URL: `file:${path.join(folder, 'releases.db')}` };
  const script = line.replaceAll('pnpm cli ', 'node apps/server/dist/cli/main.js ');
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: repositoryRoot, env });
  return stdout;
}

async function signIn(email: string, password: string): Promise<string> {
  const login = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(login.status).toBe(200);
  return ((await login.json()) as { data: { session: { token: string } } }).data.session.token;
}

async function keyNames(token: string): Promise<string[]> {
  const keys = await fetch(`${baseUrl}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
  return ((await keys.json()) as { data: { keys: Array<{ name: string }> } }).data.keys.map((key) => key.name);
}

describe('pnpm start', () => {
  it('ends by printing the web app’s address, after the demo login and key', async () => {
    const lines = output.trim().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`^ *Open ${baseUrl.replace(/\./g, '\\.')} `));
    expect(output.indexOf('Demo API key:')).toBeLessThan(output.indexOf(`Open ${baseUrl}`));
    expect((await fetch(`${baseUrl}/`, { headers: { accept: 'text/html' } })).status).toBe(200);
  });

  it('“Lost the demo key?” makes a key the demo account owns', async () => {
    const line = /Lost the demo key\?[\s\S]*?`(pnpm cli keys create [^`]+)`/.exec(readme)?.[1];
    expect(line).toMatch(/--user demo@example\.com/);
    await cli(line!);
    const password = /Demo login: +demo@example\.com \/ (\S+)/.exec(output)?.[1];
    expect(await keyNames(await signIn('demo@example.com', password!))).toEqual(['me', 'demo']);
  });

  it('the README’s command-line account step works as written, for an email the curl sign-up did not take', async () => {
    const block = /Or on the command line, for another account:\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const signedUpWith = /"email":"([^"]+)"/.exec(/# Sign up[\s\S]*?```/.exec(readme)![0])?.[1];
    const email = /--email (\S+)/.exec(block!)?.[1];
    expect(email).toBeDefined();
    expect(email).not.toBe(signedUpWith);
    await cli(block!);
    const password = /PASSWORD='([^']+)'/.exec(block!)?.[1];
    expect(await keyNames(await signIn(email!, password!))).toEqual(['laptop']);
  });

  it('every search example in the README finds what it says on the sample catalogue', async () => {
    const prose = (/Search \(`q`[\s\S]*?\n\n/.exec(readme)?.[0] ?? '').replace(/\s+/g, ' ');
    const finds = [...prose.matchAll(/`([^`]+)` finds ([A-Z][^,.)]*[^,.)\s])/g)];
    const misses = [...prose.matchAll(/`([^`]+)` does not/g)];
    expect(finds.length).toBeGreaterThanOrEqual(3);
    for (const [, q, title] of finds) {
      const found = await fetch(`${baseUrl}/api/v1/release?${new URLSearchParams({ q: q!, limit: '100' }).toString()}`);
      const titles = ((await found.json()) as { data: { releases: Array<{ title: string }> } }).data.releases.map(
        (release) => release.title,
      );
      expect(
        titles.some((each) => each.startsWith(title!)),
        `${q} finds ${title}`,
      ).toBe(true);
    }
    for (const [, q] of misses) {
      const found = await fetch(`${baseUrl}/api/v1/release?${new URLSearchParams({ q: q! }).toString()}`);
      expect(((await found.json()) as { data: { releases: unknown[] } }).data.releases, `${q} finds nothing`).toEqual(
        [],
      );
    }
  });

  it('Ctrl-C stops it cleanly: exit 0, and no ELIFECYCLE from pnpm', async () => {
    process.kill(-child.pid!, 'SIGINT');
    const { code } = await exited;
    output = readFileSync(path.join(folder, 'output.log'), 'utf8');
    expect(code).toBe(0);
    expect(output).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(output).toContain('"msg":"stopped"');
  });
});

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { serverRoot } from '../../src/config.js';

import { requireBuild, serverMain as main, startServer as startProcess } from '../support/process-harness.js';

let folder: string;

beforeAll(() => {
  requireBuild();
  folder = mkdtempSync(path.join(tmpdir(), 'releases-process-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('first start', () => {
  it('seeds the sample catalogue and prints a working demo key once, in development only', async () => {
    const env = { DATABASE_URL: `file:${path.join(folder, 'dev.db')}`, NODE_ENV: 'development', LOG_LEVEL: 'info' };
    const first = await startProcess(env);
    try {
      const key = /rls_[0-9A-Za-z]{38}/.exec(first.stderr())?.[0];
      expect(key, first.stderr()).toBeDefined();
      const health = await fetch(`${first.url}/api/v1/health`, { headers: { 'x-api-key': key! } });
      expect(await health.text()).toBe('"OK"');
      // The demo login works, and the demo key is that account's (it shows on its settings screen).
      const [, email, password] = /Demo login: +(\S+) \/ (\S+)/.exec(first.stderr()) ?? [];
      expect(email).toBe('demo@example.com');
      const login = await fetch(`${first.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      const { token } = ((await login.json()) as { data: { session: { token: string } } }).data.session;
      const keys = await fetch(`${first.url}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
      const listed = ((await keys.json()) as { data: { keys: Array<{ start: string }> } }).data.keys;
      expect(listed.map((k) => k.start)).toEqual([key!.slice(0, 12)]);
      expect(first.stdout()).not.toContain(password!);
      const list = (await (await fetch(`${first.url}/api/v1/release`)).json()) as { data: { releases: unknown[] } };
      expect(list.data.releases).toHaveLength(20);
      // Request logs are JSON lines with the request id and no credential.
      await expect.poll(() => first.stdout()).toContain('"path":"/api/v1/health"');
      expect(first.stdout()).not.toContain(key!);
      expect(first.stdout()).not.toContain(key!.slice(4, 20));
      const line = first
        .stdout()
        .split('\n')
        .find((l) => l.includes('"path":"/api/v1/health"'))!;
      expect(JSON.parse(line)).toMatchObject({ method: 'GET', status: 200, route: '/api/v1/health' });
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    const second = await startProcess(env);
    try {
      expect(second.stderr()).not.toMatch(/rls_[0-9A-Za-z]{38}|Demo login/);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('never seeds or prints a secret in production', async () => {
    const env = { DATABASE_URL: `file:${path.join(folder, 'prod.db')}`, NODE_ENV: 'production', LOG_LEVEL: 'info' };
    const running = await startProcess(env);
    try {
      expect(running.stderr()).not.toMatch(/rls_|Demo login/);
      const list = (await (await fetch(`${running.url}/api/v1/release`)).json()) as { data: { releases: unknown[] } };
      expect(list.data.releases).toEqual([]);
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
});

describe('the README quick start', () => {
  it('its curl lines work as written against a fresh start (with this test server in place of localhost:3000)', async () => {
    const readme = readFileSync(path.join(serverRoot, '..', '..', 'README.md'), 'utf8');
    const script = /```sh\n(# List releases[\s\S]*?)```/.exec(readme)?.[1];
    expect(script).toBeDefined();
    const running = await startProcess({
      DATABASE_URL: `file:${path.join(folder, 'readme.db')}`,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    });
    try {
      const key = /rls_[0-9A-Za-z]{38}/.exec(running.stderr())![0];
      const runnable = script!
        .replaceAll('http://localhost:3000', running.url)
        .replace('export RELEASES_API_KEY=rls_...', `export RELEASES_API_KEY=${key}`)
        // Each line's output on its own line, and stop at the first failing command.
        .replaceAll(/^curl /gm, 'curl -fsS -w "\\n" ');
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', runnable]);
      const answers = stdout.trim().split('\n');
      expect(answers).toHaveLength(8);
      const [list, next, health, search, japanese, facets, inContext, one] = answers as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const data = (json: string) => (JSON.parse(json) as { data: Record<string, unknown> }).data;
      const titles = (json: string) => (data(json).releases as Array<{ title: string }>).map((r) => r.title);
      expect(data(list).releases).toHaveLength(5);
      expect(data(next).releases).toHaveLength(5);
      expect(health).toBe('"OK"');
      expect(titles(search)).toHaveLength(5);
      expect(titles(search)[0]).toBe('Miku');
      expect(titles(japanese).length).toBeGreaterThan(0);
      for (const title of titles(japanese)) expect(title).toContain('初音');
      expect((data(facets).genres as unknown[]).length).toBeGreaterThan(10);
      expect(data(inContext).total).toBeGreaterThan(0);
      expect(data(inContext).total).toBeLessThan(data(facets).total as number);
      expect(data(one).title).toBe('Melt');
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
});

describe('the README account walkthrough', () => {
  it('goes from a fresh start to a key of your own with curl alone, as written', async () => {
    const readme = readFileSync(path.join(serverRoot, '..', '..', 'README.md'), 'utf8');
    const script = /```sh\n(# Sign up[\s\S]*?)```/.exec(readme)?.[1];
    expect(script).toBeDefined();
    const running = await startProcess({
      DATABASE_URL: `file:${path.join(folder, 'accounts.db')}`,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    });
    try {
      const runnable = script!
        .replaceAll('http://localhost:3000', running.url)
        .replaceAll(/^curl /gm, 'curl -fsS -w "\\n" ');
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', runnable]);
      const [health, list, revoked, logout] = stdout.split('\n') as [string, string, string, string];
      expect(health).toBe('"OK"');
      const keys = (JSON.parse(list) as { data: { keys: Array<{ name: string }> } }).data.keys;
      expect(keys.map((k) => k.name)).toEqual(['my laptop']);
      expect((JSON.parse(revoked) as { data: { revoked_at: string | null } }).data.revoked_at).not.toBeNull();
      expect(logout).toBe('');
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, finishes in-flight work, closes the database and exits 0', async () => {
    const running = await startProcess({
      DATABASE_URL: `file:${path.join(folder, 'stop.db')}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
    });
    const { port } = new URL(running.url);
    // A request genuinely in flight: the server has read half of it when the signal arrives.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /api/v1/release?limit=1 HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((r) => setTimeout(r, 100));
    running.child.kill('SIGTERM');
    await expect.poll(() => running.stdout()).toContain('shutting down');
    // New connections are refused while the old one is served.
    await expect(fetch(`${running.url}/livez`)).rejects.toThrow();
    socket.write('Accept: application/json\r\n\r\n');
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain('"success":true');
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toContain('"msg":"stopped"');
  });
});

describe('graceful shutdown, with a kept-alive connection busy when the signal comes', () => {
  it('closes that connection once its answer is written, and exits then, not after SHUTDOWN_TIMEOUT', async () => {
    const running = await startProcess({
      DATABASE_URL: `file:${path.join(folder, 'stop-busy.db')}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT: '30s',
    });
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    // A whole request, in flight when the signal comes: a sign-in costs a password hash (scrypt, N = 2^17).
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not anybody’s password at all' });
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const signalled = performance.now();
    running.child.kill('SIGTERM');
    const closedAt = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized/);
    expect(await running.exited).toBe(0);
    // Before, the connection went idle after its answer and kept the process until SHUTDOWN_TIMEOUT (30 s).
    expect(closedAt - signalled).toBeLessThan(5_000);
    expect(performance.now() - signalled).toBeLessThan(8_000);
  }, 40_000);
});

describe('configuration', () => {
  it('a bad value names the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be file:<path>/);
    expect(() => loadConfig({ RATE_LIMIT_WINDOW: '5 minutes' })).toThrow(/RATE_LIMIT_WINDOW/);
    expect(() => loadConfig({ RELEASES_AUTH: 'maybe' })).toThrow(/RELEASES_AUTH/);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(/DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ KEY_CACHE_TTL: '30s' })).toThrow(/KEY_CACHE_TTL: must be at most 5s/);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '5000' })).toThrow(/DATABASE_POOL_SIZE: must be at most 1000/);
  });

  it('DATABASE_POOL_SIZE defaults to 10 connections per instance', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
  });

  it('CATALOGUE_IN_MEMORY is on unless turned off', () => {
    expect(loadConfig({}).catalogueInMemory).toBe(true);
    expect(loadConfig({ CATALOGUE_IN_MEMORY: 'false' }).catalogueInMemory).toBe(false);
    expect(() => loadConfig({ CATALOGUE_IN_MEMORY: 'no' })).toThrow(/CATALOGUE_IN_MEMORY: must be true or false/);
  });

  it('PUBLIC_URL follows PORT unless set', () => {
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
    expect(loadConfig({ PORT: '4000', PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe(
      'https://api.example.com',
    );
  });

  it('the server refuses to start on a bad value and says why', async () => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: '99999' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('PORT');
  });
});

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, serverRoot } from '../../src/config.js';
import { startUnkeyStandin, type UnkeyStandin } from '../support/unkey-standin.js';

const main = path.join(serverRoot, 'dist', 'main.js');

/** The environment of a child process without any UNKEY_* or KEY_MANAGER the outer shell may have. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('UNKEY_') && name !== 'KEY_MANAGER'),
  );
  return { ...env, ...extra };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('KEY_MANAGER=unkey configuration', () => {
  it('names each missing variable', () => {
    expect(() => loadConfig({ KEY_MANAGER: 'unkey' })).toThrow(/UNKEY_ROOT_KEY: is required when KEY_MANAGER=unkey/);
    expect(() => loadConfig({ KEY_MANAGER: 'unkey' })).toThrow(/UNKEY_API_ID: is required when KEY_MANAGER=unkey/);
    expect(() => loadConfig({ KEY_MANAGER: 'unkey', UNKEY_ROOT_KEY: 'unkey_abcdefgh12345678' })).toThrow(
      /UNKEY_API_ID: is required/,
    );
    expect(() => loadConfig({ KEY_MANAGER: 'unkey', UNKEY_API_ID: 'api_123' })).toThrow(/UNKEY_ROOT_KEY: is required/);
    // Empty counts as unset.
    expect(() => loadConfig({ KEY_MANAGER: 'unkey', UNKEY_ROOT_KEY: '', UNKEY_API_ID: 'api_123' })).toThrow(
      /UNKEY_ROOT_KEY/,
    );
  });

  it('names each bad value, without repeating the root key', () => {
    const valid = { KEY_MANAGER: 'unkey', UNKEY_ROOT_KEY: 'unkey_abcdefgh12345678', UNKEY_API_ID: 'api_123' };
    expect(() => loadConfig({ ...valid, UNKEY_API_ID: 'my api' })).toThrow(/UNKEY_API_ID/);
    expect(() => loadConfig({ ...valid, UNKEY_BASE_URL: 'ftp://unkey.example' })).toThrow(/UNKEY_BASE_URL/);
    expect(() => loadConfig({ ...valid, UNKEY_TIMEOUT: '2 seconds' })).toThrow(/UNKEY_TIMEOUT/);
    expect(() => loadConfig({ ...valid, UNKEY_TIMEOUT: '0ms' })).toThrow(/UNKEY_TIMEOUT/);
    expect(() => loadConfig({ ...valid, KEY_MANAGER: 'vault' })).toThrow(/KEY_MANAGER/);
    const secret = 'unkey_sup3r secret';
    let message = '';
    try {
      loadConfig({ ...valid, UNKEY_ROOT_KEY: secret });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/UNKEY_ROOT_KEY/);
    expect(message).not.toContain('sup3r');
  });

  it('defaults the base URL and the timeout, and carries the settings only for unkey', () => {
    const config = loadConfig({
      KEY_MANAGER: 'unkey',
      UNKEY_ROOT_KEY: 'unkey_abcdefgh12345678',
      UNKEY_API_ID: 'api_123',
    });
    expect(config.keyManager).toBe('unkey');
    expect(config.unkey).toEqual({
      rootKey: 'unkey_abcdefgh12345678',
      apiId: 'api_123',
      baseUrl: 'https://api.unkey.com',
      timeoutMs: 2000,
    });
    expect(
      loadConfig({
        KEY_MANAGER: 'unkey',
        UNKEY_ROOT_KEY: 'unkey_abcdefgh12345678',
        UNKEY_API_ID: 'api_123',
        UNKEY_BASE_URL: 'http://127.0.0.1:9999/',
        UNKEY_TIMEOUT: '500ms',
      }).unkey,
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:9999', timeoutMs: 500 });
    expect(loadConfig({ UNKEY_ROOT_KEY: 'unkey_abcdefgh12345678' }).unkey).toBeUndefined();
  });

  it('the built server refuses to start without them, naming the variables', async () => {
    const child = spawn(process.execPath, [main], {
      env: cleanEnv({ KEY_MANAGER: 'unkey', PORT: '0', DATABASE_URL: 'file::memory:', NODE_ENV: 'production' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('UNKEY_ROOT_KEY');
    expect(err).toContain('UNKEY_API_ID');
  });
});

describe('the built server with KEY_MANAGER=unkey', () => {
  let standin: UnkeyStandin;
  let folder: string;
  beforeAll(async () => {
    standin = await startUnkeyStandin();
    folder = mkdtempSync(path.join(tmpdir(), 'releases-unkey-'));
  });
  afterAll(async () => {
    await standin.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('boots, issues its demo key through Unkey, accepts it, and never prints the root key', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [main], {
      env: cleanEnv({
        NODE_ENV: 'development',
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: url,
        DATABASE_URL: `file:${path.join(folder, 'releases.db')}`,
        LOG_LEVEL: 'trace',
        KEY_MANAGER: 'unkey',
        UNKEY_ROOT_KEY: standin.rootKey,
        UNKEY_API_ID: standin.apiId,
        UNKEY_BASE_URL: standin.url,
        UNKEY_TIMEOUT: '1s',
        // The SDK would print requests, root key included, to the console in debug mode.
        UNKEY_DEBUG: 'true',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => out, { timeout: 20_000, interval: 100 }).toContain('"msg":"listening"');
      const demoKey = /Demo API key: (rls_\S+)/.exec(err)?.[1];
      expect(demoKey).toBeDefined();
      expect(standin.keys.has(demoKey!)).toBe(true);
      const response = await fetch(`${url}/api/v1/health`, {
        headers: { 'x-api-key': demoKey! },
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(200);
      expect(standin.violations).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(out.length).toBeGreaterThan(0);
    expect(out + err).not.toContain(standin.rootKey);
  });
});

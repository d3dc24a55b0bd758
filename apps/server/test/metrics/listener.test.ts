import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { freePort, requireBuild, serverMain, startServer, type ServerProcess } from '../support/process-harness.js';

/** METRICS_PORT as `node dist/main.js` serves it (SPEC §10): its own socket, loopback by default, off unless set. */

let folder: string;
beforeAll(() => {
  requireBuild();
  folder = mkdtempSync(path.join(tmpdir(), 'releases-metrics-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const env = (name: string) => ({ DATABASE_URL: `file:${path.join(folder, `${name}.db`)}`, LOG_LEVEL: 'warn' });

describe('the metrics listener of the built server', () => {
  let server: ServerProcess;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startServer({ ...env('on'), NODE_ENV: 'production', METRICS_PORT: String(metricsPort) });
  });
  afterAll(() => server.kill());

  it('serves GET /metrics on METRICS_PORT, counting what the public port answered', async () => {
    expect((await fetch(`${server.url}/api/v1/facets`)).status).toBe(200);
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toMatch(
      /^releases_http_requests_total\{route="\/api\/v1\/facets",method="GET",status="200"\} 1$/m,
    );
    expect((await fetch(`http://127.0.0.1:${metricsPort}/api/v1/facets`)).status).toBe(404);
  });

  it('never on the public port', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('binds 127.0.0.1 unless METRICS_HOST says otherwise', async () => {
    // Another loopback address reaches every socket bound to 0.0.0.0, and none bound to 127.0.0.1 only.
    await expect(fetch(`http://127.0.0.2:${metricsPort}/metrics`)).rejects.toThrow();
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  });

  it('closes on SIGTERM with the rest, even with a scrape connection kept alive', async () => {
    // fetch keeps its connection to the metrics port open for the next scrape.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});

describe('metrics configuration', () => {
  it('is off unless METRICS_PORT is set, and listens on loopback by default', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_HOST: '0.0.0.0' }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.7' }).metrics).toEqual({
      host: '10.0.0.7',
      port: 9464,
    });
  });

  it('a bad METRICS_PORT names the variable, and the public port is refused', () => {
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT: must be a port number/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT: must be a port between 1 and 65535/);
    expect(() => loadConfig({ METRICS_PORT: '0' })).toThrow(/METRICS_PORT: must be a port between 1 and 65535/);
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' })).toThrow(/METRICS_PORT: must differ from PORT/);
  });

  it('the server does not start when METRICS_PORT cannot be bound, and says so', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const child = spawn(process.execPath, [serverMain], {
        env: { ...process.env, ...env('taken'), PORT: String(await freePort()), METRICS_PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(err).toContain(`metrics could not listen on 127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

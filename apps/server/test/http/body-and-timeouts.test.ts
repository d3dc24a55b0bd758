import { gzipSync } from 'node:zlib';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProblemSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, type TestServer } from '../support/harness.js';
import { requireBuild, startServer, type ServerProcess } from '../support/process-harness.js';

describe('compressed request bodies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      releases: 'none',
      config: { rateLimits: { windowMs: 60_000, anonymous: 100, apiKey: 100, session: 100, auth: 3 } },
    });
  });
  afterAll(() => server.close());

  const login = (encoding: string, body: Buffer) =>
    server.get('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });

  it('a corrupt gzip or deflate body is a 400 problem, counted by the rate limiter like any other request', async () => {
    const garbage = Buffer.from('this is not compressed at all');
    for (const encoding of ['gzip', 'deflate', 'gzip']) {
      const problem = await expectProblem(await login(encoding, garbage), 'invalid-request', 400);
      expect(problem.detail).toMatch(/decompress/);
    }
    // The sign-in quota (3) is spent: the limiter ran before the body was read.
    const limited = await login('gzip', garbage);
    await expectProblem(limited, 'rate-limited', 429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('a valid gzip body is read, and one that inflates past 16 KB is a 413', async () => {
    const own = await startTestServer({ releases: 'none' });
    try {
      const send = (body: Buffer) =>
        own.get('/api/v1/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body,
        });
      const wrong = gzipSync(JSON.stringify({ email: 'nobody@example.com', password: 'not the password' }));
      await expectProblem(await send(wrong), 'unauthorized', 401);
      const bomb = gzipSync(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1_000_000) }));
      expect(bomb.length).toBeLessThan(16 * 1024);
      await expectProblem(await send(bomb), 'payload-too-large', 413);
    } finally {
      await own.close();
    }
  });
});

describe('requests Node refuses before Express sees them', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ releases: 'none' });
  });
  afterAll(() => server.close());

  it('headers over 16 KB are a 431 headers-too-large problem', async () => {
    const response = await server.get('/api/v1/release', { headers: { 'x-padding': 'a'.repeat(20_000) } });
    const problem = await expectProblem(response, 'headers-too-large', 431);
    expect(problem.title).toBe('Request header fields too large');
  });
});

/** Raw HTTP over a socket: what a slow (or malicious) client sends, and everything it gets back. */
function slowClient(port: number, sent: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(sent);
    // ...and then nothing more: the rest of the request never comes. A bound on the whole test, not a timing.
    setTimeout(() => socket.destroy(new Error(`no answer; got so far: ${JSON.stringify(answer)}`)), 20_000).unref();
  });
}

function parseRawResponse(raw: string): { status: number; headers: Map<string, string>; body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
}

describe('slow clients (the server as users run it)', () => {
  let folder: string;
  let running: ServerProcess;
  beforeAll(async () => {
    requireBuild();
    folder = mkdtempSync(path.join(tmpdir(), 'releases-slow-'));
    running = await startServer({
      DATABASE_URL: `file:${path.join(folder, 'slow.db')}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      REQUEST_TIMEOUT: '1s',
    });
  });
  afterAll(async () => {
    await running?.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ['headers that never end (slow loris)', 'GET /api/v1/release HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n'],
    [
      'a body that never arrives',
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    ],
  ])('%s: a 408 request-timeout problem, then the connection closes', async (_name, sent) => {
    const { status, headers, body } = parseRawResponse(await slowClient(running.port, sent));
    expect(status).toBe(408);
    expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = ProblemSchema.parse(body);
    expect(problem.type).toMatch(/\/problems\/request-timeout$/);
    expect(problem.status).toBe(408);
    expect(problem.instance).toBe(`urn:uuid:${headers.get('x-request-id')}`);
    // Nothing on the server's side failed: no error-level log line.
    expect(running.stdout()).not.toContain('"level":50');
  });
});

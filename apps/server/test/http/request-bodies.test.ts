import { connect } from 'node:net';
import { ProblemSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * Bodies the server does not read are not read (issue 30 #1): a client that declares 10 GB and sends as fast
 * as it can was read for as long as it sent (1.78 GB in 3 s on one connection), and a login with it was never
 * answered at all.
 */

interface Flood {
  /** The first line of what came back (`HTTP/1.1 413 Payload Too Large`), or '' when nothing did. */
  status: string;
  headers: string;
  body: string;
  /** Milliseconds from the request's start to the first byte of the answer, and to the connection's end. */
  answeredMs: number | undefined;
  closedMs: number | undefined;
  /** What the client managed to write before the server stopped it (its own buffers included). */
  sentBytes: number;
}

/** Sends `head` declaring a huge body, then body bytes as fast as the socket takes them, for up to `forMs`. */
function flood(server: TestServer, head: string, forMs = 4_000): Promise<Flood> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let received = '';
    let answeredMs: number | undefined;
    let sentBytes = 0;
    const done = (closedMs: number | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      const [headers = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: headers.split('\r\n')[0] ?? '', headers, body, answeredMs, closedMs, sentBytes });
    };
    const timer = setTimeout(() => done(undefined), forMs);
    socket.on('data', (data) => {
      answeredMs ??= performance.now() - started;
      received += data.toString();
    });
    socket.on('close', () => done(performance.now() - started));
    socket.on('error', () => undefined);
    const pump = () => {
      while (!socket.destroyed && performance.now() - started < forMs) {
        sentBytes += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.write(head);
    pump();
  });
}

const tenGigabytes = 'Content-Length: 10000000000\r\n';

describe('request bodies the server does not read', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ releases: 'none' });
  });
  afterAll(() => server.close());

  it.each([
    ['a sign-in', 'POST /api/v1/auth/login', 'application/json'],
    ['a sign-in in another media type', 'POST /api/v1/auth/login', 'text/plain'],
    ['a GET of the list', 'GET /api/v1/release', 'application/json'],
  ])(
    '%s declaring a body over its route limit is a 413 at once, and the connection closes',
    async (_name, line, type) => {
      const answer = await flood(server, `${line} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n${tenGigabytes}\r\n`);
      expect(answer.status).toBe('HTTP/1.1 413 Payload Too Large');
      expect(answer.answeredMs).toBeLessThan(1_000);
      expect(answer.headers).toMatch(/\r\nconnection: close/i);
      expect(answer.headers).toMatch(/\r\nx-request-id: \S+/i);
      const problem = ProblemSchema.parse(JSON.parse(answer.body));
      expect(problem.type).toMatch(/\/problems\/payload-too-large$/);
      expect(problem.detail).toMatch(/16384 bytes/);
      // Closed within the server's grace period after the answer, not read on: what went out is what the
      // sockets' buffers took, a few megabytes at most.
      expect(answer.closedMs).toBeLessThan(3_500);
      expect(answer.sentBytes).toBeLessThan(64 * 1024 * 1024);
    },
  );

  it('an unknown route is answered, then the rest of the body is not read', async () => {
    const answer = await flood(
      server,
      `POST /api/v1/nothing-here HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${tenGigabytes}\r\n`,
    );
    expect(answer.status).toBe('HTTP/1.1 404 Not Found');
    expect(answer.answeredMs).toBeLessThan(1_000);
    expect(answer.headers).toMatch(/\r\nconnection: close/i);
    expect(answer.closedMs).toBeLessThan(3_500);
    expect(answer.sentBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('a small body in a media type the route refuses is a 415, and the connection is not read on', async () => {
    // 100 KB declared and only part sent: the 415 comes without waiting for the rest.
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (data) => (received += data.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /api/v1/auth/signup HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 16000\r\n\r\n',
    );
    socket.write('x'.repeat(1_000));
    await closed;
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 415 Unsupported Media Type');
    expect(received).toMatch(/\r\nconnection: close/i);
  });

  it('Expect: 100-continue with a declared body over the limit is a 413, and no 100 Continue', async () => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (data) => (received += data.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\nExpect: 100-continue\r\n\r\n',
    );
    await closed;
    expect(received).not.toMatch(/100 Continue/);
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('Expect: 100-continue with a body within the limit gets its 100 Continue, then its answer', async () => {
    const { hostname, port } = new URL(server.baseUrl);
    const socket = connect(Number(port), hostname);
    let received = '';
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password at all' });
    socket.on('data', (data) => {
      received += data.toString();
      if (received.includes('100 Continue') && !received.includes('401')) socket.write(body);
    });
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 Unauthorized/);
  });
});

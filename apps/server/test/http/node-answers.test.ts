import { connect } from 'node:net';
import { ProblemSchema } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

/** Node's own answers are problem documents too, each with its `x-request-id` (issue 30 #3). */
describe("Node's own answers", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ releases: 'none' });
  });
  afterAll(() => server.close());

  /** Sends raw bytes; resolves with what came back once the connection ends or a second has passed. */
  function exchange(request: string): Promise<string> {
    const { hostname, port } = new URL(server.baseUrl);
    return new Promise((resolve) => {
      const socket = connect(Number(port), hostname, () => socket.write(request));
      let received = '';
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      };
      const timer = setTimeout(done, 1_000);
      socket.on('data', (data) => (received += data.toString()));
      socket.on('close', done);
      socket.on('error', () => undefined);
    });
  }

  function problemOf(answer: string, status: string, kind: string) {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status}`);
    expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    const id = /\r\nx-request-id: (\S+)/i.exec(head)?.[1];
    expect(id).toBeDefined();
    const problem = ProblemSchema.parse(JSON.parse(body));
    expect(problem.type).toMatch(new RegExp(`/problems/${kind}$`));
    expect(problem.instance).toBe(`urn:uuid:${id}`);
    return { head, problem };
  }

  it('a request without Host is a 400 problem', async () => {
    const answer = await exchange('GET /api/v1/release HTTP/1.1\r\nConnection: close\r\n\r\n');
    const { problem } = problemOf(answer, '400 Bad Request', 'invalid-request');
    expect(problem.detail).toMatch(/Host/);
  });

  it('an expectation other than 100-continue is a 417 problem', async () => {
    const answer = await exchange(
      'GET /api/v1/release HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
    );
    const { problem } = problemOf(answer, '417 Expectation Failed', 'expectation-failed');
    expect(problem.detail).toMatch(/200-ok/);
  });

  it('CONNECT is answered with a 405 problem, not a closed connection', async () => {
    const answer = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const { head } = problemOf(answer, '405 Method Not Allowed', 'method-not-allowed');
    expect(head).toMatch(/\r\nallow: /i);
  });

  it('HTTP/1.0 needs no Host', async () => {
    const answer = await exchange('GET /livez HTTP/1.0\r\n\r\n');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});

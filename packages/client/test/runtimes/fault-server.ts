import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that fails the way networks do, for the runtime matrix: under `/<runtime>/<mode>/...`
 * it resets the connection in the middle of the status line (`reset`, `reset-post`), sends half a body and
 * resets (`cut`), answers a 200 with no body (`empty`), a 204 (`no-content`) or a 500 problem
 * (`error-500`), or records the request's identification headers (`echo`).
 *
 * Every answer closes its connection, so no runtime reuses a socket that then fails: some (Chromium, Deno's
 * hyper) silently resend a request whose reused socket was reset, which would hide how many attempts the
 * SDK made. Every answer allows CORS, so the browser sees the answers rather than a CORS error.
 */
export const faultModes = ['reset', 'reset-post', 'cut', 'empty', 'no-content', 'error-500', 'echo'] as const;
export type FaultMode = (typeof faultModes)[number];

export interface FaultServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Requests seen under `/<runtime>/<mode>/`, CORS preflights left out. */
  count(runtime: string, mode: FaultMode): number;
  /** The headers of the last `echo` request of a runtime. */
  echoed(runtime: string): IncomingHttpHeaders | undefined;
  close(): Promise<void>;
}

const cors = { 'access-control-allow-origin': '*', connection: 'close' };

function problem500(res: ServerResponse): void {
  res.writeHead(500, { ...cors, 'content-type': 'application/problem+json', 'x-request-id': 'fault-500' });
  res.end(
    JSON.stringify({
      type: 'http://fault/problems/internal-error',
      title: 'Internal server error',
      status: 500,
      detail: 'scripted',
    }),
  );
}

export async function startFaultServer(): Promise<FaultServer> {
  const counts = new Map<string, number>();
  const echoes = new Map<string, IncomingHttpHeaders>();
  const server = createServer((req, res) => {
    const [, runtime = '', mode = ''] = (req.url ?? '/').split('/');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': '*',
        'access-control-allow-headers': '*',
      });
      return res.end();
    }
    counts.set(`${runtime}/${mode}`, (counts.get(`${runtime}/${mode}`) ?? 0) + 1);
    switch (mode as FaultMode) {
      case 'reset':
      case 'reset-post':
        // Half a status line, then a TCP reset.
        res.socket?.write('HTTP/1.1 200 OK\r\nContent-Type: appl');
        res.socket?.resetAndDestroy();
        return;
      case 'cut':
        res.writeHead(200, { ...cors, 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"success":true,"data":{"vocaloid', () => res.socket?.resetAndDestroy());
        return;
      case 'empty':
        res.writeHead(200, { ...cors, 'content-type': 'application/json', 'content-length': '0' });
        return res.end();
      case 'no-content':
        res.writeHead(204, cors);
        return res.end();
      case 'error-500':
        return problem500(res);
      case 'echo':
        echoes.set(runtime, req.headers);
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            success: true,
            data: { vocaloid_banks: [], genres: [], languages: [], total: 0, generated_at: '2026-11-22T08:00:00.000Z' },
          }),
        );
      default:
        res.writeHead(404, cors);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (runtime, mode) => counts.get(`${runtime}/${mode}`) ?? 0,
    echoed: (runtime) => echoes.get(runtime),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

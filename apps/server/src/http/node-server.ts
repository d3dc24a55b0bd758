import { headerNames, problemContentType } from '@releases/contract';
import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { HttpProblem } from '../kernel/http-problem.js';
import type { Metrics } from '../metrics/metrics.js';
import { problemBody } from './problem-response.js';
import { oversizedBody, refuseBody } from './request-bodies.js';
import type { RouteTable } from './route-table.js';

export interface NodeServerDeps {
  /** The app's listener (`createApp`): every request Node hands over goes there. */
  listener: RequestListener;
  routes: RouteTable;
  publicUrl: string;
  logger: Logger;
  metrics: Metrics;
}

/**
 * A Node HTTP server with this service's settings, listening on nothing and answering nothing until `serve`
 * gives it the app. `requestTimeoutMs` (`REQUEST_TIMEOUT`): how long a client has to send its headers and body
 * (unset: Node's defaults).
 */
export function createNodeServer(options: { requestTimeoutMs?: number } = {}): Server {
  const { requestTimeoutMs } = options;
  return createServer({
    ...(requestTimeoutMs === undefined
      ? {}
      : {
          // A client has REQUEST_TIMEOUT to send its headers and body (a 408 problem otherwise: slow loris),
          // checked every second rather than Node's default 30 s, so the bound holds within a second.
          requestTimeout: requestTimeoutMs,
          headersTimeout: requestTimeoutMs,
          connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
        }),
    // `serve` answers a request without Host itself, with a problem document.
    requireHostHeader: false,
  });
}

/**
 * Gives a server created by `createNodeServer` the app, and makes every answer is a problem document with an
 * `x-request-id`, Node's own included (issue 30 #3):
 * - a request without `Host` (HTTP/1.1 requires one) is a 400, which Node would otherwise send bare;
 * - `Expect: 100-continue` is answered with the 413 its declared body earns before the client sends it, or a
 *   `100 Continue`; any other expectation is a 417;
 * - `CONNECT` (a proxy's method; this is no proxy) is a 405, where Node would close the connection;
 * - what Node's parser refuses (headers over 16 KB, malformed HTTP, a request too slow to arrive) is a 431,
 *   400 or 408 before the connection closes.
 */
export function serve(server: Server, deps: NodeServerDeps): void {
  const requireHost = (req: IncomingMessage): HttpProblem | undefined =>
    req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined
      ? new HttpProblem('invalid-request', 'An HTTP/1.1 request must have a Host header.')
      : undefined;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refused = requireHost(req);
    if (refused) return refuseBody(deps, req, res, refused);
    deps.listener(req, res);
  });
  server.on('checkContinue', (req: IncomingMessage, res) => {
    const refused = requireHost(req) ?? oversizedBody(deps.routes, req);
    if (refused) return refuseBody(deps, req, res, refused);
    res.writeContinue();
    deps.listener(req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res) => {
    const expectation = req.headers.expect ?? '';
    refuseBody(
      deps,
      req,
      res,
      new HttpProblem('expectation-failed', `This server meets only "Expect: 100-continue", not "${expectation}".`),
    );
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    answerOnSocket(
      socket,
      new HttpProblem('method-not-allowed', 'CONNECT is not supported: this server is not a proxy.', {
        headers: { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' },
      }),
      deps.publicUrl,
    );
  });
  answerClientErrors(server, deps.publicUrl);
}

/** What Node's own refusals become (error codes of its HTTP parser and server). */
const clientErrorProblems: Record<string, () => HttpProblem> = {
  HPE_HEADER_OVERFLOW: () =>
    new HttpProblem('headers-too-large', 'The request line and headers are larger than this server accepts (16 KB).'),
  // `requestTimeout` / `headersTimeout` ran out: a slow or stalled client (slow loris).
  ERR_HTTP_REQUEST_TIMEOUT: () =>
    new HttpProblem('request-timeout', 'The request (its headers or body) did not arrive in time. Send it again.'),
};

/**
 * Requests Node rejects before the app sees them still get a problem document instead of a bare status line,
 * then the connection closes. Nothing is written once a response to that request has begun, as Node's own
 * default does.
 */
function answerClientErrors(server: Server, publicUrl: string): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const problem =
      clientErrorProblems[error.code ?? '']?.() ??
      new HttpProblem('invalid-request', 'The request is not valid HTTP/1.1.');
    answerOnSocket(socket, problem, publicUrl);
  });
}

/** Writes a problem straight onto a socket no response object owns, and closes it. */
function answerOnSocket(socket: Duplex, problem: HttpProblem, publicUrl: string): void {
  const requestId = randomUUID();
  const body = JSON.stringify(problemBody(problem, { publicUrl, requestId }));
  const extra = Object.entries(problem.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\n` +
      `Content-Type: ${problemContentType}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${headerNames.requestId}: ${requestId}\r\n${extra}Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

import { headerNames } from '@releases/contract';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { HttpProblem } from '../kernel/http-problem.js';
import type { Metrics } from '../metrics/metrics.js';
import { writeProblem } from './problem-response.js';
import { requestIdOf } from './request-id.js';
import { loggedPath, logRequest } from './request-log.js';
import type { RouteTable } from './route-table.js';
import { closeUnreadBody, declaresBody, lingeringClose } from './unread-body.js';

export interface RequestBodyDeps {
  routes: RouteTable;
  publicUrl: string;
  logger: Logger;
  metrics: Metrics;
}

/**
 * The refusal of a request whose declared `Content-Length` is over its route's limit (`RouteEntry.maxBodyBytes`),
 * decided from the headers alone; undefined when the request may go on. A body sent in chunks is counted as it
 * is read, by the route's body parser, against the same limit.
 */
export function oversizedBody(routes: RouteTable, req: IncomingMessage): HttpProblem | undefined {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (!(declared > 0)) return undefined;
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const match = routes.match(req.method ?? 'GET', queryAt === -1 ? url : url.slice(0, queryAt), { loose: true });
  if (!match || declared <= match.entry.maxBodyBytes) return undefined;
  return new HttpProblem(
    'payload-too-large',
    `The request body is larger than ${match.entry.maxBodyBytes} bytes, the most this endpoint takes.`,
  );
}

/**
 * Bodies the server will not read are not read (issue 30 #1).
 *
 * - A declared `Content-Length` over the route's limit is answered at once with a 413, before any of the body
 *   arrives (the app never sees the request).
 * - Whatever else is answered before its body was read (a 404, a 415, a refusal, a GET that came with a body)
 *   stops reading: the connection is half-closed after the answer and closed a moment later, instead of Node
 *   reading the rest to keep the connection alive (a client declaring 10 GB was read for as long as it sent).
 */
export function boundedRequestBodies(deps: RequestBodyDeps, listener: RequestListener): RequestListener {
  return (req, res) => {
    if (!declaresBody(req)) return listener(req, res);
    // An answer written before the body was read says so, and ends the connection (`closeUnreadBody`).
    res.once('finish', () => {
      if (!req.complete) lingeringClose(req.socket);
    });
    const refused = oversizedBody(deps.routes, req);
    if (!refused) return listener(req, res);
    refuseBody(deps, req, res, refused);
  };
}

/** Answers a request with `problem` without reading its body, and closes the connection after the answer. */
export function refuseBody(
  deps: Pick<RequestBodyDeps, 'publicUrl' | 'logger' | 'metrics'>,
  req: IncomingMessage,
  res: ServerResponse,
  problem: HttpProblem,
): void {
  const started = performance.now();
  const id = requestIdOf(req);
  res.setHeader(headerNames.requestId, id);
  closeUnreadBody(req, res);
  writeProblem(res, problem, { publicUrl: deps.publicUrl, logger: deps.logger });
  logRequest(deps.logger, deps.metrics, {
    reqId: id,
    method: req.method ?? 'GET',
    path: loggedPath(req.url?.split('?')[0] ?? '/', false),
    route: undefined,
    status: res.statusCode,
    ms: performance.now() - started,
  });
}

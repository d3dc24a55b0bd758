import type { AppRoute } from '@ts-rest/core';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { headerNames } from '@releases/contract';
import type { Logger } from 'pino';
import vary from 'vary';
import { admissionHeaders, type Admit } from '../auth/admission.js';
import type { Clock } from '../kernel/clock.js';
import { loggedPath, logRequest } from './request-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { writeProblem } from './problem-response.js';
import type { ReplayableRoute } from './replayable.js';
import type { RouteEntry, RouteTable } from './route-table.js';
import type { CatalogueReads } from '../db/interface.js';
import { answerOf, endingAt, freshAnswer, type Answer, type AnswerCache } from './answer-cache.js';
import { codingFor, completed, compressPrefix, minCompressedBytes } from './compression.js';
import type { PublicReadCors } from './cors.js';
import { parseQueryString } from './query-string.js';
import { requestIdOf } from './request-id.js';
import { setHeaders, type HeaderList } from './security-headers.js';

export interface FastPathDeps {
  /** The one admission function, which the Express pipeline calls too. */
  admit: Admit;
  /** The contract's routes, as Express serves them too. */
  routes: RouteTable;
  /**
   * The answers of the routes the contract marks `replayable`, bound to the same functions as their Express
   * routes (`routes/release.ts`, `routes/facets.ts`): one for each such route, and none for any other.
   */
  replays: readonly ReplayableRoute[];
  answers: AnswerCache;
  catalogue: Pick<CatalogueReads, 'cacheStamp'>;
  /** The security headers of `/api` answers, as Express sets them. */
  apiHeaders: HeaderList;
  cors: PublicReadCors;
  publicUrl: string;
  logger: Logger;
  /** Counts each request it answers, as the Express request logger does for the rest. */
  metrics: Metrics;
  clock: Clock;
  isShuttingDown: () => boolean;
  /** Told of each lookup in the answer cache. */
  onLookup?: (hit: boolean) => void;
}

const jsonContentType = [['content-type', 'application/json; charset=utf-8']] as const;

/** The replays by route, checked against the route table: every replayable route has one, and only those. */
function replaysByRoute(deps: FastPathDeps): Map<AppRoute, ReplayableRoute> {
  const byRoute = new Map(deps.replays.map((replay) => [replay.route, replay]));
  const replayable = deps.routes.where((metadata) => metadata.replayable);
  const missing = replayable.filter((entry) => !byRoute.has(entry.route)).map((entry) => entry.key);
  const extra = deps.replays.filter((replay) => !replayable.some((entry) => entry.route === replay.route));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `the fast path needs an answer for every replayable route and no other (missing: ${missing.join(', ') || 'none'}; ` +
        `not replayable: ${extra.map((replay) => replay.route.path).join(', ') || 'none'})`,
    );
  }
  return byRoute;
}

/**
 * The request path of the public reads: GETs of the routes the contract marks `replayable` (a page of releases,
 * a release, the facets), answered ahead of Express.
 *
 * These are what crawlers, SDK walks and every visitor of the web app ask for, thousands of different URLs a
 * second, and Express's own cost per request (its router, req/res set-up, each middleware) was larger than
 * the database query's (docs/architecture.md). So they take the shortest path that still does everything the
 * Express route does, with the same parts: the route table, the one admission function (`auth/admission.ts`),
 * the contract's schemas for the query, the route's own answer function, the problem writer, the same security
 * and CORS headers, and the same log line. Answers worth keeping go to the answer cache and are given again,
 * with what differs per request made anew.
 *
 * What this path does not answer goes to Express, which finds the request already admitted (admission happens
 * once per request): HEAD, other spellings of a path, a refusal (401, 403, 429) or a session cookie to renew,
 * and a path parameter that is not valid percent-encoding. Express answers those as it answers everything.
 */
export function fastPath(deps: FastPathDeps): (app: RequestListener) => RequestListener {
  const replays = replaysByRoute(deps);
  return (app) => (req, res) => {
    if (req.method !== 'GET' || deps.isShuttingDown()) return void app(req, res);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const match = deps.routes.match('GET', path);
    const replay = match && replays.get(match.entry.route);
    if (!match || !replay) return void app(req, res);
    const params: Record<string, string> = {};
    try {
      for (const [name, value] of Object.entries(match.params)) params[name] = decodeURIComponent(value);
    } catch {
      return void app(req, res);
    }
    const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
    serve(deps, match.entry, replay, { url, path, query, params }, req, res, app).catch((error: unknown) =>
      // A bug of ours: answered like one, never left hanging.
      writeProblem(res, error, { publicUrl: deps.publicUrl, logger: deps.logger }),
    );
  };
}

interface Target {
  url: string;
  path: string;
  query: string;
  params: Record<string, string>;
}

async function serve(
  deps: FastPathDeps,
  entry: RouteEntry,
  replay: ReplayableRoute,
  target: Target,
  req: IncomingMessage,
  res: ServerResponse,
  app: RequestListener,
): Promise<void> {
  const started = performance.now();
  let admission;
  try {
    admission = await deps.admit(entry.metadata, req);
  } catch {
    // Admission could not decide (the database or the key manager is not answering): Express reports it.
    return void app(req, res);
  }
  if (admission.problem !== undefined || admission.setCookie !== undefined) return void app(req, res);

  const id = requestIdOf(req);
  const common = [...deps.apiHeaders, ...deps.cors.headersFor(req.headers.origin), ...admissionHeaders(admission)];
  let answer: Answer | undefined;
  const stamp = deps.catalogue.cacheStamp();
  if (stamp !== undefined) {
    answer = deps.answers.lookup(target.url, stamp);
    deps.onLookup?.(answer !== undefined);
  }
  const accepted = codingFor(req.headers['accept-encoding']);
  if (answer === undefined) {
    try {
      const reply = await replay.answer({ query: parseQueryString(target.query), params: target.params });
      const replyHeaders = [...jsonContentType, ...reply.headers];
      const contentLength = Buffer.byteLength(reply.body);
      // Kept only if no write started a new generation while it was being read.
      const kept =
        stamp !== undefined && deps.catalogue.cacheStamp() === stamp && deps.answers.admits(target.url, contentLength);
      // An answer to keep is split where its time goes, to be given again with another time; so is one sent
      // compressed, so that its bytes are those it will have when given again. Any other goes out whole.
      const made = kept || accepted !== undefined ? answerOf : freshAnswer;
      answer = made(stamp ?? -1, reply.body, replyHeaders, contentLength);
      if (kept) deps.answers.keep(target.url, answer);
    } catch (error) {
      setHeaders(res, common);
      // As Express says of every response the compression middleware sees, compressed or not.
      vary(res, 'Accept-Encoding');
      res.setHeader(headerNames.requestId, id);
      writeProblem(res, error, { publicUrl: deps.publicUrl, logger: deps.logger });
      return finish(deps, req, res, entry, target, id, started);
    }
  }
  const headers: string[] = [];
  let varies = 'Accept-Encoding';
  for (const [name, value] of common) {
    if (name === 'vary') varies = `${value}, ${varies}`;
    else headers.push(name, value);
  }
  for (const [name, value] of answer.headers) headers.push(name, value);
  headers.push('vary', varies, headerNames.requestId, id);
  const ending = endingAt(answer, deps.clock.now());
  const coding = answer.contentLength >= minCompressedBytes ? accepted : undefined;
  if (coding === undefined) {
    headers.push('content-length', String(answer.contentLength));
    // One writeHead with every header and nothing set before it: Node's fast path for a response.
    res.writeHead(200, headers);
    if (typeof answer.before === 'string') res.end(answer.before + ending);
    else {
      // A kept answer's bytes go out as they are, followed by its time: corked, so that the head, the bytes and
      // the ending leave in one write (`end` uncorks).
      res.cork();
      res.write(answer.before);
      res.end(ending);
    }
  } else {
    // The beginning is compressed once per kept answer (and once for an answer not kept); the ending per response.
    const prefix = (answer.compressed[coding] ??= compressPrefix(coding, answer.before));
    const body = Buffer.concat(completed(prefix, ending));
    headers.push('content-encoding', coding, 'content-length', String(body.length));
    res.writeHead(200, headers);
    res.end(body);
  }
  finish(deps, req, res, entry, target, id, started);
}

function finish(
  deps: FastPathDeps,
  req: IncomingMessage,
  res: ServerResponse,
  entry: RouteEntry,
  target: Target,
  id: string,
  started: number,
): void {
  logRequest(deps.logger, deps.metrics, {
    reqId: id,
    method: req.method ?? 'GET',
    path: loggedPath(target.path, true),
    route: entry.route.path,
    status: res.statusCode,
    ms: performance.now() - started,
  });
}

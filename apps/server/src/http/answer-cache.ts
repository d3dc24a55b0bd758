import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { headerNames } from '@releases/contract';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { admissionHeaders, type Admit } from '../auth/admission.js';
import type { Clock } from '../clock.js';
import { logRequest } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { sentJsonText } from '../routes/json-text.js';
import type { CatalogueReads } from '../storage/interface.js';
import { describedRoutes, type ContractRoute } from './contract-routes.js';
import { requestIdOf } from './request-id.js';

export interface AnswerCacheDeps {
  /** The one admission function, which the app's route pipeline calls too. */
  admit: Admit;
  catalogue: Pick<CatalogueReads, 'cacheStamp'>;
  logger: Logger;
  /** Counts each request it answers, as the app's request logger does for the rest. */
  metrics: Metrics;
  clock: Clock;
  isShuttingDown: () => boolean;
  /** Told of each replayable GET: answered from memory, or handed to the app. */
  onLookup?: (hit: boolean) => void;
}

/** A 200 answer as the app gave it, minus what is made anew for every request. */
interface Answer {
  /** The catalogue generation it was read in (`CatalogueReads.cacheStamp`). */
  stamp: number;
  route: ContractRoute;
  /** Its headers, flat (`[name, value, name, value...]`), without the per-request ones. */
  headers: string[];
  /** The body, split where `generated_at` goes (`after` is empty when it has none). */
  before: string;
  after: string;
  contentLength: number;
}

/**
 * Headers made anew for every response: by admission (quota, `Cache-Control`, the session cookie), for the
 * request (its id, the length) or by Node.
 */
const perResponseHeaders = new Set<string>([
  headerNames.requestId,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  'cache-control',
  'set-cookie',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/** `generated_at` is always `YYYY-MM-DDTHH:mm:ss.sssZ`: 24 ASCII characters, the last member of `data`. */
const generatedAtKey = '"generated_at":"';
const timestampLength = 24;
const maxAnswers = 2_000;
/** At most this many characters of answers in all (V8 keeps ASCII text at a byte a character). */
const maxChars = 8 * 1024 * 1024;
/** URLs remembered as asked for once, so an answer is kept only when its URL comes back. */
const maxSeen = 4 * maxAnswers;

/**
 * Repeated public reads answered from memory, ahead of Express.
 *
 * Routes the contract marks `replayable` (a page of releases, a release, the facets) answer with a body that
 * depends on nothing but the URL while the catalogue stays the same. The second time a URL is asked for, the
 * app's 200 answer to it (headers and body) is kept, under the exact request target and `Origin` (which CORS
 * answers to), for the catalogue generation it was read in. Later GETs of that URL in that generation are
 * admitted by the same admission function as the app's (`auth/admission.ts`) and, when admitted plainly, get
 * the kept answer with what differs per request made anew: the admission's headers (quota, `no-store` for a
 * session), the request id, `generated_at` and the log line. Anything else (a refusal, a cookie to renew)
 * goes to the app, which finds the request already admitted.
 *
 * Kept only on a URL's second request: a crawl or a walk through thousands of pages, each asked for once,
 * costs a set lookup per request rather than a body kept and evicted unread.
 */
export class AnswerCache {
  private readonly answers = new LRUCache<string, Answer>({
    max: maxAnswers,
    maxSize: maxChars,
    sizeCalculation: (answer, key) => answer.before.length + answer.after.length + key.length,
  });
  private readonly seen = new LRUCache<string, true>({ max: maxSeen });
  private readonly routes = describedRoutes().filter(
    ({ route, metadata }) => route.method === 'GET' && metadata.replayable,
  );

  constructor(private readonly deps: AnswerCacheDeps) {}

  /** The request listener: this cache in front of `app`. */
  listener(app: RequestListener): RequestListener {
    return (req, res) => {
      if (req.method !== 'GET' || this.deps.isShuttingDown()) return void app(req, res);
      const url = req.url ?? '/';
      const route = this.routeOf(url);
      if (!route) return void app(req, res);
      const stamp = this.deps.catalogue.cacheStamp();
      if (stamp === undefined) return void app(req, res);
      const origin = req.headers.origin;
      const key = origin === undefined ? url : `${url}\n${origin}`;
      const answer = this.answers.get(key);
      this.deps.onLookup?.(answer?.stamp === stamp);
      if (answer?.stamp === stamp) return void this.replay(answer, req, res, app);
      if (this.seen.has(key)) res.once('finish', () => this.remember(key, stamp, route, res));
      else this.seen.set(key, true);
      app(req, res);
    };
  }

  private routeOf(url: string): ContractRoute | undefined {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    return this.routes.find(({ pattern }) => pattern.test(path));
  }

  /** Answers from memory once admitted; the app answers whatever admission did not simply let through. */
  private replay(answer: Answer, req: IncomingMessage, res: ServerResponse, app: RequestListener): void {
    const started = performance.now();
    this.deps.admit(answer.route.metadata, req).then(
      (admission) => {
        if (admission.problem !== undefined || admission.setCookie !== undefined) return void app(req, res);
        const id = requestIdOf(req);
        const headers = [...answer.headers, headerNames.requestId, id, 'content-length', String(answer.contentLength)];
        for (const [name, value] of admissionHeaders(admission)) headers.push(name, value);
        // One writeHead with every header and nothing set before it: Node's fast path for a response.
        res.writeHead(200, headers);
        res.end(
          answer.after === ''
            ? answer.before
            : answer.before + new Date(this.deps.clock.now()).toISOString() + answer.after,
        );
        logRequest(this.deps.logger, this.deps.metrics, {
          reqId: id,
          method: 'GET',
          path: pathOf(req.url),
          route: answer.route.route.path,
          status: 200,
          ms: performance.now() - started,
        });
      },
      // Admission could not decide (the database or the key manager is not answering): the app reports it.
      () => void app(req, res),
    );
  }

  /** Keeps the app's answer if it may be given again. */
  private remember(key: string, stamp: number, route: ContractRoute, res: ServerResponse): void {
    const text = sentJsonText(res);
    if (text === undefined || res.statusCode !== 200 || this.deps.catalogue.cacheStamp() !== stamp) return;
    const at = text.lastIndexOf(generatedAtKey);
    const split =
      at !== -1 && text.length === at + generatedAtKey.length + timestampLength + 3
        ? { before: text.slice(0, at + generatedAtKey.length), after: text.slice(-3) }
        : { before: text, after: '' };
    this.answers.set(key, {
      stamp,
      route,
      headers: flatHeaders(res.getHeaders()),
      ...split,
      contentLength: Buffer.byteLength(text),
    });
  }
}

function flatHeaders(headers: OutgoingHttpHeaders): string[] {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || perResponseHeaders.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one));
  }
  return flat;
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

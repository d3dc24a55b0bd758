import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { headerNames, type RouteAuth } from '@releases/contract';
import type { Logger } from 'pino';
import proxyAddress from 'proxy-addr';
import { verifyCredential, type Authenticator } from '../auth/authenticate.js';
import { presentedCredential } from '../auth/credentials.js';
import type { Clock } from '../clock.js';
import { logRequest } from '../logger.js';
import type { CatalogueReads } from '../storage/interface.js';
import {
  addressPartition,
  rateLimitHeader,
  type CallerQuotas,
  type FailedCredentialGuard,
  type QuotaUse,
} from './rate-limit.js';
import { requestContext } from './request-context.js';
import { requestIdOf } from './request-id.js';

export interface PublicReadCacheDeps extends Authenticator {
  catalogue: Pick<CatalogueReads, 'cacheStamp'>;
  quotas: CallerQuotas;
  failedCredentials: FailedCredentialGuard;
  /** False under `RELEASES_AUTH=required`: anonymous callers are then the app's to refuse. */
  anonymousAllowed: boolean;
  logger: Logger;
  clock: Clock;
  /** The session cookie's name: a request that carries it is the app's. */
  sessionCookieName: string;
  /** Express's compiled `trust proxy` rule, so the client address is the one the app would see. */
  trustProxy: (address: string, hop: number) => boolean;
  isShuttingDown: () => boolean;
}

/** A 200 answer as the app gave it, minus what is made anew for every request. */
interface Answer {
  /** The catalogue generation it was read in (`CatalogueReads.cacheStamp`). */
  stamp: number;
  /** Its headers, flat (`[name, value, name, value...]`), without the per-request ones. */
  headers: string[];
  before: string;
  after: string;
  contentLength: number;
  /** The contract route's path, for the log line. */
  route: string | undefined;
  /** The route's credential rule: anonymous callers are answered from memory only where they may call. */
  auth: RouteAuth;
  /** Given to a session (it carries `Cache-Control: no-store`): only a session may have it again. */
  forSession: boolean;
  chars: number;
}

/** Headers that belong to one response only: made anew (request id, quota, length) or by Node (date...). */
const perResponseHeaders = new Set<string>([
  headerNames.requestId,
  headerNames.rateLimit,
  headerNames.rateLimitPolicy,
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/** `generated_at` is always `YYYY-MM-DDTHH:mm:ss.sssZ`: 24 ASCII characters. */
const timestampLength = 24;
const maxAnswers = 2_000;
/** At most this many characters of answers in all (V8 keeps ASCII text at a byte a character). */
const maxChars = 8 * 1024 * 1024;
/**
 * Where answers given to sessions are kept, apart from the others (request targets start with `/` or a scheme,
 * never with this).
 */
const sessionKeyPrefix = 'session ';

/**
 * Repeated public reads answered from memory, ahead of Express.
 *
 * The first GET of a URL whose route says its answer may be given again (a page of releases, a release, the
 * facets: `RequestContext.replayableBody`) goes through the whole app. Its 200 answer, headers and body, is
 * kept under the exact request target (and `Origin`, which CORS answers to) for the catalogue generation it was
 * read in. The next GET of that URL, while the catalogue is unchanged, by an anonymous caller, one with an API
 * key or a session, gets the same answer without the app: the parts that differ between two such requests are
 * made here the way the app makes them (request id, the count against the caller's quota in the same store,
 * `generated_at`, the log line), with the app's own functions. Answers given to sessions are kept apart from
 * the others, since the app's differ (`Cache-Control: no-store`); a session is verified as the app verifies it
 * (`SessionService.resume`, which also slides its expiry).
 *
 * Anything the app has not answered before, and anything that would not end in that 200 go to the app:
 * validation, cursors, planning, credentials that fail, a session cookie due for renewal and every problem
 * stay where they are. This only spares the framework's fixed cost on the hottest path (see bench/RESULTS.md).
 */
export class PublicReadCache {
  private readonly answers = new Map<string, Answer>();
  private chars = 0;

  constructor(private readonly deps: PublicReadCacheDeps) {}

  /** The request listener: this cache in front of `app`. */
  listener(app: RequestListener): RequestListener {
    return (req, res) => {
      const key = this.keyOf(req);
      if (key === undefined) return void app(req, res);
      const stamp = this.deps.catalogue.cacheStamp();
      if (stamp === undefined) return void app(req, res);
      const answer = this.answers.get(key);
      if (answer?.stamp === stamp) return void this.replay(answer, req, res, app);
      res.once('finish', () => this.remember(key, stamp, req, res));
      app(req, res);
    };
  }

  /**
   * The key of a request that may be answered from memory, or undefined: the request target and `Origin`, apart
   * for a request that presents a session (an API key takes precedence over one, as in `presentedCredential`).
   */
  private keyOf(req: IncomingMessage): string | undefined {
    if (req.method !== 'GET' || this.deps.isShuttingDown()) return undefined;
    const headers = req.headers;
    const target = headers.origin === undefined ? req.url : `${req.url}\n${headers.origin}`;
    const presentsSession =
      headers[headerNames.apiKey] === undefined &&
      (headers.authorization !== undefined || headers.cookie?.includes(this.deps.sessionCookieName) === true);
    return presentsSession ? sessionKeyPrefix + target : target;
  }

  /** Answers from memory, once the caller is counted; hands the request to the app when it must answer instead. */
  private replay(answer: Answer, req: IncomingMessage, res: ServerResponse, app: RequestListener): void {
    const started = performance.now();
    this.count(req, answer).then(
      (counted) => {
        if (counted === 'app') return void app(req, res);
        if (counted?.exceeded) {
          // The app answers the 429, with this count (not a second one).
          requestContext(req).countedQuota = counted;
          return void app(req, res);
        }
        const id = requestIdOf(req);
        const headers = [...answer.headers, headerNames.requestId, id, 'content-length', String(answer.contentLength)];
        if (counted) {
          headers.push(headerNames.rateLimit, rateLimitHeader(counted), headerNames.rateLimitPolicy, counted.policy);
        }
        // One writeHead with every header and nothing set before it: Node's fast path for a response.
        res.writeHead(200, headers);
        res.end(
          answer.after === ''
            ? answer.before
            : answer.before + new Date(this.deps.clock.now()).toISOString() + answer.after,
        );
        logRequest(this.deps.logger, {
          reqId: id,
          method: 'GET',
          path: pathOf(req.url),
          route: answer.route,
          status: 200,
          ms: performance.now() - started,
        });
      },
      // The quota could not be counted and the store does not fail open, or a lookup failed: the app reports it.
      () => void app(req, res),
    );
  }

  /**
   * What the app's pipeline would do for this caller before its handler: an API key or a session must have
   * proved good lately on this instance (else the failed-credential guard has its say first, in the app), is
   * verified by the same function (the key's cache and last-use note; the session's row, and its sliding
   * expiry) and proves good again; then the caller is counted against their quota. `app` when the app must
   * answer: a bad key or session, a malformed credential, a caller of another kind than the answer was given
   * to, a cookie to renew, or an anonymous caller under `RELEASES_AUTH=required`. Nothing is counted before a
   * hand-over but a spent quota's request.
   */
  private async count(req: IncomingMessage, answer: Answer): Promise<QuotaUse | undefined | 'app'> {
    const { auth } = answer;
    const credential = presentedCredential(req.headers, auth, this.deps.sessionCookieName);
    if ((credential.kind === 'session') !== answer.forSession) return 'app';
    if (credential.kind === 'none') {
      if (auth !== 'none' && (auth !== 'optional' || !this.deps.anonymousAllowed)) return 'app';
      return this.deps.quotas.count('anonymous', addressPartition(proxyAddress(req, this.deps.trustProxy)));
    }
    if (credential.kind === 'malformed' || !this.deps.failedCredentials.provenLately(credential)) return 'app';
    const verified = await verifyCredential(credential, this.deps, []);
    if (!('caller' in verified)) return 'app';
    const { caller } = verified;
    this.deps.failedCredentials.proveAgain(credential);
    switch (caller.kind) {
      case 'api-key':
        return this.deps.quotas.count('api-key', `key:${caller.keyId}`);
      case 'session':
        // Its expiry just slid: the app renews the cookie with it, for the caller verified here.
        if (caller.extended && caller.via === 'cookie') {
          requestContext(req).verifiedCaller = caller;
          return 'app';
        }
        return this.deps.quotas.count('session', `user:${caller.userId}`);
      case 'anonymous':
        return 'app';
    }
  }

  /** Keeps the app's answer to `req` if it may be given again. */
  private remember(key: string, stamp: number, req: IncomingMessage, res: ServerResponse): void {
    const context = requestContext(req);
    const body = context.replayableBody;
    if (
      body === undefined ||
      res.statusCode !== 200 ||
      context.authFailure !== undefined ||
      (context.caller.kind === 'session') !== key.startsWith(sessionKeyPrefix) ||
      context.metadata.rateLimit !== undefined ||
      res.hasHeader('set-cookie') ||
      this.deps.catalogue.cacheStamp() !== stamp
    ) {
      return;
    }
    const answer: Answer = {
      stamp,
      headers: flatHeaders(res.getHeaders()),
      before: body.before,
      after: body.after,
      contentLength:
        Buffer.byteLength(body.before) + (body.after === '' ? 0 : timestampLength + Buffer.byteLength(body.after)),
      route: context.route?.path,
      auth: context.metadata.auth,
      forSession: context.caller.kind === 'session',
      chars: body.before.length + body.after.length + key.length,
    };
    const previous = this.answers.get(key);
    if (previous) {
      this.chars -= previous.chars;
      this.answers.delete(key);
    }
    while (this.answers.size > 0 && (this.answers.size >= maxAnswers || this.chars + answer.chars > maxChars)) {
      const [oldestKey, oldest] = this.answers.entries().next().value!;
      this.answers.delete(oldestKey);
      this.chars -= oldest.chars;
    }
    this.answers.set(key, answer);
    this.chars += answer.chars;
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

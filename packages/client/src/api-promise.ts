/** What `.withResponse()` gives: the parsed data, the raw `Response` and the request id. */
export interface WithResponse<T> {
  /** The call's data, as awaiting the call gives it. */
  data: T;
  /** The raw `Response` (status, headers such as `Link` and `RateLimit`); its body has been read. */
  response: Response;
  /** The `x-request-id` the server answered with: quote it when you report a problem. */
  requestId: string | undefined;
}

/**
 * The text of each body the SDK has read, by its `Response`, for `asResponse()`: the SDK reads every body
 * within the attempt (its timeout covers the body, and a body cut short is retried), so the `Response` a
 * call saw can no longer be read. Weak: a body is kept only as long as its `Response` is.
 */
const bodies = new WeakMap<Response, string>();

/** Keeps what the SDK read of `response`, for `asResponse()`. */
export function keepBody(response: Response, text: string): void {
  bodies.set(response, text);
}

/** Statuses whose `Response` may not have a body at all, not even an empty one (Fetch standard). */
const nullBodyStatuses: ReadonlySet<number> = new Set([204, 205, 304]);

/** A `Response` like the one received, with its body unread. */
function unread(response: Response): Response {
  const body = nullBodyStatuses.has(response.status) ? null : (bodies.get(response) ?? '');
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The executor's functions of a promise, kept to settle it later. */
interface Settle<T> {
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

/**
 * The promise of a call's data, which can also give the raw response: `await client.facets.list()` is the
 * data, `await client.facets.list().withResponse()` adds the `Response` and the request id. The request
 * starts at once.
 *
 * A real `Promise` subclass, not a thenable: it can be returned where a `Promise<T>` is declared, passes
 * `instanceof Promise`, and works with every library that checks for one. `then`, `catch` and `finally`
 * return plain `Promise`s (`Symbol.species`), so nothing but the SDK ever calls this constructor.
 *
 * The data promise is connected to the request on first use (`then`, `await`): a caller who only uses
 * `withResponse()` handles that promise's rejection, and this one, never observed, never settles, so no
 * second "unhandled rejection" is reported for the same failure.
 */
export class APIPromise<T> extends Promise<T> {
  /** Derived promises are plain `Promise`s: their constructor takes an executor, ours a request. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #response: Promise<WithResponse<T>>;
  readonly #settle: Settle<T>;
  #connected = false;

  /**
   * Made by the SDK's resources; you only construct one to fake the SDK in your own tests.
   * @param response The call in flight, resolving to its data and raw response.
   */
  constructor(response: Promise<WithResponse<T>>) {
    let settle: Settle<T> | undefined;
    super((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.#settle = settle!;
    this.#response = response;
    // A failure nobody asked about is not an unhandled rejection: it surfaces to whoever awaits the call.
    response.catch(() => undefined);
  }

  /** The data together with the raw `Response` and the request id. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#response;
  }

  /**
   * The raw `Response` (status, headers, and the body, still to read: for your own parsing), once the call
   * succeeded; a non-2xx throws its typed error after the retries, as awaiting the call does.
   * @example
   * const response = await client.facets.list().asResponse();
   * console.log(response.status, response.headers.get('ratelimit'), await response.json());
   */
  asResponse(): Promise<Response> {
    return this.#response.then((result) => unread(result.response));
  }

  /**
   * Attaches callbacks for the data or the failure, as `Promise.prototype.then` does.
   * @param onfulfilled Called with the call's data.
   * @param onrejected Called with the error (a `ReleasesError`, or an abort signal's reason).
   */
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    if (!this.#connected) {
      this.#connected = true;
      this.#response.then((result) => this.#settle.resolve(result.data), this.#settle.reject);
    }
    return super.then(onfulfilled, onrejected);
  }
}

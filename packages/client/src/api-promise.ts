/** What `.withResponse()` gives: the parsed data, the raw `Response` and the request id. */
export interface WithResponse<T> {
  data: T;
  response: Response;
  requestId: string | undefined;
}

/**
 * A promise of a call's data that can also give the raw response: `await client.facets.list()` is the data,
 * `await client.facets.list().withResponse()` adds the `Response` and request id. The request starts at once.
 */
export class APIPromise<T> implements PromiseLike<T> {
  private dataPromise: Promise<T> | undefined;

  constructor(private readonly responsePromise: Promise<WithResponse<T>>) {
    // Unobserved failures surface through `then`, not as unhandled rejections of the inner promise.
    responsePromise.catch(() => undefined);
  }

  withResponse(): Promise<WithResponse<T>> {
    return this.responsePromise;
  }

  private data(): Promise<T> {
    this.dataPromise ??= this.responsePromise.then((result) => result.data);
    return this.dataPromise;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.data().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.data().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.data().finally(onfinally);
  }
}

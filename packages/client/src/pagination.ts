import { APIPromise, type WithResponse } from './api-promise.js';
import { ReleasesError } from './errors.js';
import type { Release, ReleaseListParams } from './types.js';

/** Fetches one page of releases for the given parameters (with the caller's per-call options). */
export type PageFetcher = (params: ReleaseListParams) => Promise<WithResponse<ReleasePage>>;

/** One page of `GET /api/v1/release`. */
export class ReleasePage {
  /** The releases of this page, in the list's order. */
  readonly releases: Release[];
  /** Cursor of the next page, or `''` on the last page (the API's `data.pagination`). */
  readonly nextCursor: string;
  /** When the server generated this page (ISO 8601 UTC). */
  readonly generatedAt: string;
  readonly #params: ReleaseListParams;
  readonly #fetchPage: PageFetcher;

  /**
   * Made by `client.releases.list()`; you only construct one to fake the SDK in your own tests.
   * @param params The parameters this page was fetched with; the next page keeps them.
   * @param fetchPage Fetches another page with the same client and options.
   */
  constructor(
    releases: Release[],
    nextCursor: string,
    generatedAt: string,
    params: ReleaseListParams,
    fetchPage: PageFetcher,
  ) {
    this.releases = releases;
    this.nextCursor = nextCursor;
    this.generatedAt = generatedAt;
    this.#params = params;
    this.#fetchPage = fetchPage;
  }

  /** Whether there is a page after this one (the cursor is not empty). */
  hasNextPage(): boolean {
    return this.nextCursor !== '';
  }

  /** The next page. Throws a `ReleasesError` on the last page (check `hasNextPage()` first). */
  async getNextPage(): Promise<ReleasePage> {
    if (!this.hasNextPage()) throw new ReleasesError('This is the last page: there is no next page to fetch.');
    return (await this.#fetchPage({ ...this.#params, cursor: this.nextCursor })).data;
  }
}

/**
 * The result of `client.releases.list()`: await it for the first page, or iterate it for every release of
 * every page (`for await (const release of client.releases.list(params))`).
 */
export class ReleasePagePromise extends APIPromise<ReleasePage> implements AsyncIterable<Release> {
  readonly #firstPage: Promise<WithResponse<ReleasePage>>;

  /**
   * Made by `client.releases.list()`; you only construct one to fake the SDK in your own tests.
   * @param firstPage The first page's request in flight.
   */
  constructor(firstPage: Promise<WithResponse<ReleasePage>>) {
    super(firstPage);
    this.#firstPage = firstPage;
  }

  /** Every page, first to last. Ends when the cursor is empty; a cursor seen twice throws instead of looping. */
  async *pages(): AsyncGenerator<ReleasePage, void, undefined> {
    let page = (await this.#firstPage).data;
    const seen = new Set<string>();
    for (;;) {
      yield page;
      if (!page.hasNextPage()) return;
      if (seen.has(page.nextCursor)) {
        throw new ReleasesError('The server returned a cursor it had returned before; stopping instead of looping.');
      }
      seen.add(page.nextCursor);
      page = await page.getNextPage();
    }
  }

  /** Every release of every page: `for await (const release of client.releases.list(params))`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Release, void, undefined> {
    for await (const page of this.pages()) yield* page.releases;
  }

  /**
   * Collects releases across pages into an array, stopping at `max`. The bound is required so a loop over a
   * large catalogue never fills memory by accident.
   * @param options `max`: the most releases to collect, a whole number >= 0.
   */
  async toArray(options: { max: number }): Promise<Release[]> {
    if (!Number.isInteger(options.max) || options.max < 0)
      throw new ReleasesError('toArray needs { max } as a whole number >= 0.');
    const releases: Release[] = [];
    if (options.max === 0) return releases;
    for await (const release of this) {
      releases.push(release);
      if (releases.length >= options.max) break;
    }
    return releases;
  }
}

import type { SortOrder } from '@releases/contract';
import type { FilterKeys } from './filters.js';
import type { Search } from './search-text.js';

/**
 * A query of the catalogue as every reader of it takes it (the database's plans and the catalogue in memory
 * alike): what narrows it, how it is ordered, and where a page starts.
 */

/** The position just after the last release of a page, in sort order. */
export interface ReleasePosition {
  /** Under `sort=relevance`: the tier, 0 (title equals `q`) to 3 (the rest). */
  tier?: number | undefined;
  releaseDate: string;
  id: string;
}

/** What narrows the catalogue: the filters, and the search when there is one. */
export interface CatalogueQuery {
  filters: FilterKeys;
  search?: Search | undefined;
}

export interface ReleasePageRequest extends CatalogueQuery {
  sort: SortOrder;
  limit: number;
  after: ReleasePosition | undefined;
}

export interface ReleasePage {
  /** Each release as its stored JSON text, ready to be written to a response without re-serializing. */
  releaseJson: string[];
  /** Where the next page starts, or undefined on the last page. */
  next: ReleasePosition | undefined;
}

/**
 * The relevance tiers (SPEC §3.6), best first: 0, the title equals `q`; 1, it starts with `q`; 2, every term is
 * in the title; 3, the rest.
 */
export const relevanceTiers = 4;

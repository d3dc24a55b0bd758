import { releaseFilterParameters, type ReleaseFilterParameter } from '@releases/contract';
import { canonicalLanguageTag } from './language-tags.js';

/** A value per filter of the contract (`releaseFilterParameters`): adding a filter there reaches every use. */
export type PerFilter<T> = Record<ReleaseFilterParameter, T>;

/** Filter values as storage keys them: lowercase, distinct. An empty list means "no filter". */
export type FilterKeys = PerFilter<string[]>;

/**
 * How each filter's values are spelled where they are stored: language tags in their canonical form
 * (`iw` → `he`, `zh-hans` → `zh-Hans`), the others as given. Applied on import and on every query, so each
 * spelling of a value finds the same releases.
 */
export const canonicalFilterValue: PerFilter<(value: string) => string> = {
  vocaloid_banks: (value) => value,
  genres: (value) => value,
  languages: canonicalLanguageTag,
};

/**
 * The keys of a query's filters. Cursors are bound to these keys, so a cursor made with `languages=iw` also
 * serves `languages=he`.
 */
export function filterKeys(query: PerFilter<readonly string[]>): FilterKeys {
  return perFilter((name) => [...new Set(query[name].map((value) => canonicalFilterValue[name](value).toLowerCase()))]);
}

/** Builds a value for every filter, in the contract's order. */
export function perFilter<T>(make: (name: ReleaseFilterParameter) => T): PerFilter<T> {
  return Object.fromEntries(releaseFilterParameters.map((name) => [name, make(name)])) as PerFilter<T>;
}

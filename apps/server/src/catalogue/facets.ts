import { releaseFilterParameters, type FacetValue, type ReleaseFilterParameter } from '@releases/contract';
import { perFilter, type FilterKeys, type PerFilter } from './filters.js';

/**
 * Facets in context (SPEC §3.6), decided here once for every reader of the catalogue: which counts make them,
 * how those combine, and how they are listed. The catalogue in memory (`search/filter-postings.ts`) and the
 * database (`db/catalogue/catalogue-reads.ts`) each only count a pass, their own way.
 *
 * Each filter's values are counted over the releases matching the query and the *other* filters, so values of
 * one filter stay OR-able (choosing `genres=rock` does not zero the other genres); the total is over all of it.
 * The filters nobody chose all count over the whole query in one pass, which also gives the total; each chosen
 * filter counts in a pass of its own, over the query without it.
 */

/** One count over the catalogue: the values of `filters` among the releases matching the query without `except`. */
export interface FacetPass {
  filters: ReleaseFilterParameter[];
  /** The filter left out of the query; undefined: the whole query (this pass also gives the total). */
  except: ReleaseFilterParameter | undefined;
}

/** What a pass counted: each of its filters' values by key (absent: none), and how many releases matched. */
export interface PassCount {
  counts: Partial<PerFilter<Map<string, number>>>;
  total: number;
}

/** The passes facets in context take for these chosen filters: the whole query's first. */
export function facetPasses(chosen: FilterKeys): FacetPass[] {
  return [
    { filters: releaseFilterParameters.filter((name) => chosen[name].length === 0), except: undefined },
    ...releaseFilterParameters
      .filter((name) => chosen[name].length > 0)
      .map((name) => ({ filters: [name], except: name })),
  ];
}

/** Each filter's counts from the passes, in `facetPasses`' order, and the query's total (the first pass's). */
export function combinePasses(
  passes: readonly FacetPass[],
  counted: readonly PassCount[],
): { counts: PerFilter<Map<string, number>>; total: number } {
  const counts = perFilter(() => new Map<string, number>());
  passes.forEach((pass, i) => {
    for (const name of pass.filters) {
      for (const [key, n] of counted[i]?.counts[name] ?? []) if (n > 0) counts[name].set(key, n);
    }
  });
  return { counts, total: counted[0]?.total ?? 0 };
}

/**
 * The facets as the API lists them: each filter's counted values, most common first (then by key), then the
 * chosen values nothing matched, at 0, so a client can show them unticked; spelled as `display` spells them.
 */
export function listFacets(
  chosen: FilterKeys,
  display: PerFilter<ReadonlyMap<string, string>>,
  counts: PerFilter<ReadonlyMap<string, number>>,
): PerFilter<FacetValue[]> {
  return perFilter((name): FacetValue[] => {
    const spelled = (key: string) => display[name].get(key) ?? key;
    const listed = [...counts[name]]
      .filter(([, count]) => count > 0)
      .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, count]) => ({ value: spelled(key), count }));
    for (const key of chosen[name]) if (!counts[name].get(key)) listed.push({ value: spelled(key), count: 0 });
    return listed;
  });
}

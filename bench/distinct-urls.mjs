// The distinct-URL workload (`pnpm bench -- --distinct`, `pnpm bench:profile -- --distinct`): what crawlers, SDK
// users walking pages with `for await`, and many people filtering at once produce. Thousands of different URLs,
// each requested once per cycle in one global round robin, so no cache can hold the working set and nearly every
// request is a first request. Collected by walking cursors on a running server: a cursor is signed with the
// database's secret, so the same URLs are valid on every server of the run.

/**
 * Pages walked per query, by family: enough that each family (at 100,000 releases and more) is twice as many
 * URLs as the answer cache holds (2,000), so that a round over it is first requests however the cache chooses.
 */
const walks = {
  unfiltered: 1000,
  oneFilter: 400,
  twoFilters: 400,
  /** The rarest voice banks: every page there is. */
  rare: Number.POSITIVE_INFINITY,
};

/**
 * Every page's URL along a walk of `query` (page one included), at most `pages` of them.
 * `query` is a query string without `?`, e.g. `genres=rock&limit=20`.
 */
async function walk(baseUrl, query, pages) {
  const urls = [];
  let cursor = '';
  while (urls.length < pages) {
    const url = `/api/v1/release?${query}${cursor ? `&cursor=${cursor}` : ''}`;
    urls.push(url);
    const response = await fetch(`${baseUrl}${url}`);
    if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    cursor = (await response.json()).data.pagination;
    if (!cursor) break;
  }
  return urls;
}

/**
 * The distinct URLs, by family: unfiltered (both sorts, limits 20 and 50), one filter (six genres, six voice
 * banks), two filters (four banks × three languages) and the rarest banks. `facets` is the server's
 * `/api/v1/facets` data.
 */
export async function collectDistinctUrls(baseUrl, facets) {
  const enc = encodeURIComponent;
  const top = (list, n) => list.slice(0, n).map((f) => f.value);
  const unfiltered = [];
  for (const sort of ['-release_date', 'release_date'])
    for (const limit of [20, 50])
      unfiltered.push(...(await walk(baseUrl, `limit=${limit}&sort=${sort}`, walks.unfiltered)));
  const oneFilter = [];
  for (const genre of top(facets.genres, 6))
    oneFilter.push(...(await walk(baseUrl, `genres=${enc(genre)}&limit=20`, walks.oneFilter)));
  for (const bank of top(facets.vocaloid_banks, 6))
    oneFilter.push(...(await walk(baseUrl, `vocaloid_banks=${enc(bank)}&limit=20`, walks.oneFilter)));
  const twoFilters = [];
  for (const bank of top(facets.vocaloid_banks, 4))
    for (const language of top(facets.languages, 3))
      twoFilters.push(
        ...(await walk(baseUrl, `vocaloid_banks=${enc(bank)}&languages=${enc(language)}&limit=20`, walks.twoFilters)),
      );
  const rare = [];
  for (const bank of facets.vocaloid_banks.filter((f) => f.count > 0 && f.count < 200).map((f) => f.value))
    rare.push(...(await walk(baseUrl, `vocaloid_banks=${enc(bank)}&limit=20`, walks.rare)));
  return { unfiltered, oneFilter, twoFilters, rare };
}

/** Interleaves lists (one from each in turn), so a round robin over the result mixes every family evenly. */
export function interleave(lists) {
  const mixed = [];
  const longest = Math.max(...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) mixed.push(list[i]);
  return mixed;
}

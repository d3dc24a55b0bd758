// The distinct-URL workload (`pnpm bench -- --distinct`, `pnpm bench:profile -- --distinct`): what crawlers, SDK
// users walking pages with `for await`, and many people filtering at once produce. Thousands of different URLs,
// each requested once per cycle in one global round robin, so no cache can hold the working set and nearly every
// request is a first request. Collected by walking cursors on a running server: a cursor is signed with the
// database's secret, so the same URLs are valid on every server of the run.
import { syntheticVocabulary } from '../apps/server/dist/catalogue/synthetic.js';

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
export async function walk(baseUrl, query, pages) {
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
 * banks), two filters (four banks × three languages), the rarest banks, and the search families
 * (`collectSearchUrls`). `facets` is the server's `/api/v1/facets` data.
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
  return { unfiltered, oneFilter, twoFilters, rare, ...(await collectSearchUrls(baseUrl, facets)) };
}

// --- search (SPEC §3.6) -----------------------------------------------------------------------------------------
// Terms from the synthetic catalogue's vocabulary (`syntheticVocabulary`, from the built server): Latin title words,
// Japanese title words (a fifth of titles, two words joined by の), and the artists `Producer 001`..`Producer 400`.
const { titleWords, japaneseWords, producers } = syntheticVocabulary;
const latinWords = titleWords.map((word) => word.toLowerCase());
const producerNumbers = producers.map((name) => name.split(' ')[1]);

/**
 * Searches people type: whole words, a word's beginning while typing (3 letters and up, none of `producer`'s,
 * which would match every release), single kana and kanji, a producer by name or by number, two title words, a
 * whole Japanese title (the first relevance tier), and pairs that match nothing (a Latin and a Japanese word,
 * never in one title).
 */
function searchTerms() {
  const prefixes = new Set();
  for (const word of latinWords)
    for (let length = 3; length < word.length; length++) {
      const prefix = word.slice(0, length);
      if (!'producer'.startsWith(prefix)) prefixes.add(prefix);
    }
  const characters = new Set(japaneseWords.flatMap((word) => (word.length > 1 ? [...word] : [])));
  const pairs = [];
  for (let i = 0; i < latinWords.length; i++)
    for (let j = i + 1; j < latinWords.length; j++) pairs.push(`${latinWords[i]} ${latinWords[j]}`);
  const titles = japaneseWords.flatMap((a) => japaneseWords.filter((b) => b !== a).map((b) => `${a}の${b}`));
  const nothing = latinWords.slice(0, 25).map((word, i) => `${word} ${japaneseWords[i % japaneseWords.length]}`);
  return {
    single: [...latinWords, ...japaneseWords],
    all: [
      ...latinWords,
      ...prefixes,
      ...japaneseWords,
      ...characters,
      ...producerNumbers.map((n) => `producer ${n}`),
      ...producerNumbers,
      ...pairs,
      ...titles,
      ...nothing,
    ],
    pairs,
  };
}

const pageSizes = [20, 50, 10, 25];

/**
 * The search families, each at least 4,000 URLs at 100,000 releases and more:
 * - searchPageOne: page one of about 2,000 different searches, relevance (the default) and newest first, some
 *   oldest first, page sizes varied;
 * - searchDeep: the pages after the first along walks of twelve common searches (Latin and Japanese), by
 *   relevance (crossing the tiers) and by date;
 * - searchFiltered: a search with a filter (a genre, a voice bank or a language): page one of many, and walks;
 * - facetsInContext: `/api/v1/facets` with a search, a search and a filter, or filters alone.
 */
export async function collectSearchUrls(baseUrl, facets) {
  const enc = encodeURIComponent;
  const top = (list, n) => list.slice(0, n).map((f) => f.value);
  const terms = searchTerms();
  const searchPageOne = [];
  terms.all.forEach((term, i) => {
    const limit = pageSizes[i % pageSizes.length];
    searchPageOne.push(`/api/v1/release?q=${enc(term)}&limit=${limit}`);
    searchPageOne.push(`/api/v1/release?q=${enc(term)}&sort=-release_date&limit=${limit}`);
    if (i % 3 === 0) searchPageOne.push(`/api/v1/release?q=${enc(term)}&sort=release_date`);
  });

  const searchDeep = [];
  for (const term of [
    'love',
    'star',
    'night',
    'heart',
    'dream',
    'moon',
    'song',
    'blue',
    '初音',
    '桜',
    '東京',
    'ハッピー',
  ])
    for (const sort of ['relevance', '-release_date'])
      searchDeep.push(...(await walk(baseUrl, `q=${enc(term)}&sort=${sort}&limit=20`, 200)).slice(1));

  const filters = [
    ...top(facets.genres, 6).map((g) => `genres=${enc(g)}`),
    ...top(facets.vocaloid_banks, 4).map((b) => `vocaloid_banks=${enc(b)}`),
    ...top(facets.languages, 2).map((l) => `languages=${enc(l)}`),
  ];
  const filteredTerms = [
    ...terms.single,
    ...producerNumbers.filter((_, i) => i % 10 === 0).map((n) => `producer ${n}`),
  ];
  const searchFiltered = [];
  filteredTerms.forEach((term, i) =>
    filters.forEach((filter, j) => {
      const limit = pageSizes[(i + j) % pageSizes.length];
      searchFiltered.push(`/api/v1/release?q=${enc(term)}&${filter}&limit=${limit}`);
      searchFiltered.push(`/api/v1/release?q=${enc(term)}&${filter}&sort=-release_date&limit=${limit}`);
      searchFiltered.push(`/api/v1/release?q=${enc(term)}&${filter}&sort=release_date`);
    }),
  );
  for (const term of terms.pairs.slice(0, 60))
    for (const filter of filters) searchFiltered.push(`/api/v1/release?q=${enc(term)}&${filter}`);
  for (const term of ['love', 'star', '初音', '桜'])
    for (const filter of filters.slice(0, 3).concat(filters.slice(6, 8)))
      searchFiltered.push(...(await walk(baseUrl, `q=${enc(term)}&${filter}&limit=20`, 50)).slice(1));

  const facetsInContext = [];
  for (const term of terms.all.filter((term) => !/^\d+$/.test(term)))
    facetsInContext.push(`/api/v1/facets?q=${enc(term)}`);
  for (const term of filteredTerms)
    for (const filter of filters) facetsInContext.push(`/api/v1/facets?q=${enc(term)}&${filter}`);
  const genres = facets.genres.map((f) => f.value);
  const banks = facets.vocaloid_banks.map((f) => f.value);
  const languages = facets.languages.map((f) => f.value);
  for (const genre of genres) {
    facetsInContext.push(`/api/v1/facets?genres=${enc(genre)}`);
    for (const language of languages)
      facetsInContext.push(`/api/v1/facets?genres=${enc(genre)}&languages=${enc(language)}`);
    for (const bank of banks) facetsInContext.push(`/api/v1/facets?vocaloid_banks=${enc(bank)}&genres=${enc(genre)}`);
  }
  for (const bank of banks) {
    facetsInContext.push(`/api/v1/facets?vocaloid_banks=${enc(bank)}`);
    for (const language of languages)
      facetsInContext.push(`/api/v1/facets?vocaloid_banks=${enc(bank)}&languages=${enc(language)}`);
  }
  return { searchPageOne, searchDeep, searchFiltered, facetsInContext };
}

/** Interleaves lists (one from each in turn), so a round robin over the result mixes every family evenly. */
export function interleave(lists) {
  const mixed = [];
  const longest = Math.max(...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) mixed.push(list[i]);
  return mixed;
}

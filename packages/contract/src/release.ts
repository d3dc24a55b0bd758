import { z } from 'zod';
import { commaListLengthProblem, commaListProblem, isLanguageTag, splitCommaList } from './comma-list.js';
import {
  defaultSearchSortOrder,
  defaultSortOrder,
  limits,
  releaseTypes,
  sortOrders,
  type ReleaseFilterParameter,
  type SortOrder,
} from './limits.js';
import type { ParameterDoc } from './parameter-docs.js';
import { isoTimestamp } from './timestamps.js';
import { searchTextProblem } from './search-text.js';
import { writtenText } from './written-text-schema.js';

/** `rel_` + URL-safe characters. */
export const releaseIdPattern = new RegExp(`^rel_[A-Za-z0-9_-]{1,${limits.maxIdLength - 4}}$`);

/** The largest count a 32-bit integer holds: release counts stay far below it. */
const maxCount = 2 ** 31 - 1;

/**
 * A URL a release links to or shows: an absolute `http:` or `https:` URL, written as a person would
 * (`writtenText`). Nothing else: a `javascript:` or `data:` URL served to every client would be code or content
 * the catalogue never vetted, one click away in any app that renders links (issue 30).
 */
const linkUrl = writtenText(
  z
    .string()
    .url()
    .max(2048)
    .refine((url) => /^https?:\/\//i.test(url), { message: 'must be an http: or https: URL' }),
);

export const ReleaseLinkSchema = z.object({
  site: writtenText(z.string().min(1).max(64)).describe('Where the link points, e.g. `youtube`, `niconico`, `vocadb`.'),
  url: linkUrl,
});

/** A filter value as stored: non-empty, bounded, and free of commas (a comma could never be queried). */
const filterValue = (what: string) =>
  writtenText(
    z
      .string()
      .trim()
      .min(1, `${what} must not be empty`)
      .max(limits.maxFilterValueLength, `${what} is at most ${limits.maxFilterValueLength} characters`)
      .refine((value) => !value.includes(','), `${what} must not contain a comma`),
  );

const releaseDate = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in the form YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00.000Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date');

/** A release as the API returns it (SPEC §3.1): snake_case, every field always present. */
export const ReleaseSchema = z.object({
  id: z
    .string()
    .max(limits.maxIdLength)
    .regex(releaseIdPattern)
    .describe('Stable, URL-safe identifier, prefixed `rel_`.'),
  title: writtenText(z.string().min(1).max(512)),
  artist: writtenText(z.string().min(1).max(512)).describe('Producer or circle credited.'),
  release_date: releaseDate.describe('Calendar date, `YYYY-MM-DD`.'),
  release_type: z.enum(releaseTypes),
  vocaloid_banks: z.array(filterValue('a voice bank name')).min(1).max(limits.maxFilterValues),
  genres: z.array(filterValue('a genre')).max(limits.maxFilterValues).describe('Lowercase genre names.'),
  languages: z
    .array(filterValue('a language tag').refine(isLanguageTag, 'must be a BCP 47 language tag'))
    .max(limits.maxFilterValues)
    .describe('BCP 47 language tags.'),
  track_count: z.number().int().min(1).max(10_000),
  cover_url: linkUrl.nullable(),
  links: z.array(ReleaseLinkSchema).max(50),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});
export type Release = z.infer<typeof ReleaseSchema>;

/**
 * A release as `cli import` accepts it: the timestamps are the service's to keep, and genres are stored
 * lowercase whatever the file says. Every text field follows the rule for written text (`writtenText`), so
 * no control character, lone surrogate or bidirectional override reaches the catalogue.
 */
export const ReleaseInputSchema = ReleaseSchema.omit({ created_at: true, updated_at: true })
  .extend({ genres: ReleaseSchema.shape.genres.transform((genres) => genres.map((g) => g.toLowerCase())) })
  .strict();
export type ReleaseInput = z.input<typeof ReleaseInputSchema>;
export type ParsedReleaseInput = z.output<typeof ReleaseInputSchema>;

/**
 * A query parameter as Express hands it over (one string, or several when the parameter repeats), read by
 * a plain function. One transform per parameter instead of a chain of unions, refinements and pipes: the
 * query is parsed on every list request, and this is several times cheaper with the same messages.
 */
type ParameterReader<T> = (raw: string | string[] | undefined) => { value: T } | { problem: string };

function queryParameter<T>(read: ParameterReader<T>) {
  return z.unknown().transform((raw, ctx): T => {
    const input =
      typeof raw === 'string' || raw === undefined
        ? raw
        : Array.isArray(raw) && raw.every((v) => typeof v === 'string')
          ? raw
          : null;
    const result = input === null ? { problem: 'must be a string' } : read(input);
    if ('problem' in result) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: result.problem });
      return z.NEVER;
    }
    return result.value;
  });
}

/** A comma-separated filter (SPEC §3.1); the parsed value is the list of distinct, trimmed values. */
function commaListParameter(
  name: ReleaseFilterParameter,
  description: string,
  checkValue?: (value: string) => string | undefined,
) {
  return queryParameter((raw) => {
    const tooLong = (typeof raw === 'string' ? [raw] : (raw ?? [])).map(commaListLengthProblem).find(Boolean);
    if (tooLong) return { problem: tooLong };
    const values = splitCommaList(raw);
    const problem = commaListProblem(values) ?? values.map((value) => checkValue?.(value)).find(Boolean);
    return problem ? { problem } : { value: values };
  }).describe(
    `${description} Separate values with commas (\`${name}=a,b\`) or repeat the parameter (\`${name}=a&${name}=b\`): either way the filter is the union of the values. Values are trimmed and empty ones dropped; at most ${limits.maxFilterValues} values of 1 to ${limits.maxFilterValueLength} characters each, and at most ${limits.maxFilterParameterLength} characters in one parameter. Control characters, lone surrogates and bidirectional overrides are refused (400).`,
  );
}

/** A parameter that may appear at most once; present-but-empty is the same as absent. */
function singleParameter<T>(fallback: T, read: (text: string) => T | undefined, problem: string) {
  return queryParameter<T>((raw) => {
    if (Array.isArray(raw)) return { problem: 'may be given only once' };
    const text = raw?.trim();
    if (!text) return { value: fallback };
    const value = read(text);
    return value === undefined ? { problem } : { value };
  });
}

const pageSizeProblem = `must be an integer from 1 to ${limits.maxPageSize}`;

/** `q`: trimmed; present but empty is the same as absent. */
const searchParameter = queryParameter<string | undefined>((raw) => {
  if (Array.isArray(raw)) return { problem: 'may be given only once' };
  const text = raw?.trim();
  if (!text) return { value: undefined };
  const problem = searchTextProblem(text);
  return problem ? { problem } : { value: text };
}).describe(
  `Search text, 1 to ${limits.maxSearchLength} characters: a release matches when every term (at most ${limits.maxSearchTerms}, separated by spaces) occurs in its title or artist, ignoring case, width and diacritics. Latin terms match the beginning of a word (\`hoshi\` finds "Hoshiboshi", \`boshi\` does not); Japanese, Chinese and Korean terms match anywhere, from one character. Combines with the filters (AND).`,
);

/** The filters and `q`: what narrows the catalogue, for the list and the facets alike (SPEC §3.6). */
const catalogueQueryShape = {
  vocaloid_banks: commaListParameter(
    'vocaloid_banks',
    'Voice bank names, e.g. `Hatsune Miku,GUMI`: case-insensitive exact match; a release matches when it has any of them.',
  ),
  genres: commaListParameter(
    'genres',
    'Genre names, e.g. `rock,electropop`: case-insensitive exact match; a release matches when it has any of them.',
  ),
  languages: commaListParameter(
    'languages',
    'BCP 47 language tags, e.g. `ja,en`: case-insensitive; a release matches when it has any of them. A malformed tag is a 400.',
    (value) => (isLanguageTag(value) ? undefined : `"${value}" is not a BCP 47 language tag`),
  ),
  q: searchParameter,
};

export const ReleaseListQuerySchema = z
  .object({
    ...catalogueQueryShape,
    limit: singleParameter<number>(
      limits.defaultPageSize,
      (text) =>
        /^\d{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= limits.maxPageSize ? Number(text) : undefined,
      pageSizeProblem,
    ).describe(`Page size, 1 to ${limits.maxPageSize}; default ${limits.defaultPageSize}.`),
    // Length and content are the cursor codec's to judge, so every bad cursor is an `invalid-cursor`.
    cursor: singleParameter<string | undefined>(undefined, (text) => text, 'is not a cursor').describe(
      "Opaque cursor from a previous response's `data.pagination`; omit it for the first page.",
    ),
    sort: singleParameter<SortOrder | undefined>(
      undefined,
      (text) => sortOrders.find((order) => order === text),
      `must be one of ${sortOrders.join(', ')}`,
    ).describe(
      '`-release_date` (newest first), `release_date` (oldest first) or `relevance` (only with `q`: the title equal to `q`, then starting with it, then holding every term, then the rest, each newest first). The default is `relevance` with `q`, else `-release_date`; ties break on `id`.',
    ),
  })
  .strict()
  .transform(({ sort, ...query }, ctx) => {
    if (sort === 'relevance' && query.q === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['sort'], message: 'relevance needs a search (q)' });
      return z.NEVER;
    }
    return { ...query, sort: sort ?? (query.q === undefined ? defaultSortOrder : defaultSearchSortOrder) };
  });
export type ReleaseListQuery = z.output<typeof ReleaseListQuerySchema>;

/** The facets' query: the list's filters and `q`, under the same rules. */
export const FacetsQuerySchema = z.object(catalogueQueryShape).strict();
export type FacetsQuery = z.output<typeof FacetsQuerySchema>;

/** One page of releases. */
export const ReleaseListSchema = z.object({
  releases: z.array(ReleaseSchema).max(limits.maxPageSize),
  pagination: z
    .string()
    .max(limits.maxCursorLength)
    .describe('Cursor of the next page, to send back as `cursor`; the empty string on the last page.'),
  generated_at: isoTimestamp.describe('When this response was generated, ISO 8601 UTC with milliseconds.'),
});

export const ReleaseListResponseSchema = z.object({ success: z.literal(true), data: ReleaseListSchema });
export type ReleaseListResponse = z.infer<typeof ReleaseListResponseSchema>;

export const ReleaseResponseSchema = z.object({ success: z.literal(true), data: ReleaseSchema });

/** The query of a route that takes no parameters: any parameter is a 400 that names it (SPEC §3.6). */
export const NoQuerySchema = z.object({}).strict();

export const ReleaseIdParamsSchema = z.object({
  id: z.string().max(limits.maxIdLength).regex(releaseIdPattern, 'is not a release id (they look like rel_...)'),
});

export const FacetValueSchema = z.object({
  value: z.string().min(1).max(limits.maxFilterValueLength),
  count: z.number().int().min(0).max(maxCount),
});
export type FacetValue = z.infer<typeof FacetValueSchema>;

const facetValues = z.array(FacetValueSchema).max(limits.maxFacetValues);

/**
 * Every filter value in the catalogue with its number of releases, most common first. With a query, each
 * filter's counts are over the releases matching `q` and the other filters (so values within one filter stay
 * OR-able), and a chosen value is listed even at 0.
 */
export const FacetsSchema = z.object({
  vocaloid_banks: facetValues,
  genres: facetValues,
  languages: facetValues,
  total: z.number().int().min(0).max(maxCount).describe('How many releases match the whole query.'),
  generated_at: isoTimestamp,
});

export const FacetsResponseSchema = z.object({ success: z.literal(true), data: FacetsSchema });
export type Facets = z.infer<typeof FacetsResponseSchema>['data'];

/**
 * A list filter on the wire: one string of comma-separated values, as the interface types it (SPEC §3.2), so
 * generated clients take `genres: 'rock,electropop'`. Its limits per value are in the description: a schema
 * for the items would make it an array, which the interface is not. Repeating the parameter (the union, see
 * above) is a form a string parameter cannot declare; the description says it.
 */
const filterParameterDoc = (example: string): ParameterDoc => ({
  schema: z.string().max(limits.maxFilterParameterLength),
  example,
});

/** `q` on the wire: the search text; its rules are in the description. */
const searchParameterDoc: ParameterDoc = {
  schema: z.string().max(limits.maxSearchLength),
  example: 'melt',
};

/**
 * How the list parameters look on the wire, for the OpenAPI document: the query schema above reads each with a
 * transform (which also takes the repeated form and parses it), and a generator cannot see through that.
 */
export const facetsParameterDocs = {
  vocaloid_banks: filterParameterDoc('Hatsune Miku,GUMI'),
  genres: filterParameterDoc('rock,electropop'),
  languages: filterParameterDoc('ja,en'),
  q: searchParameterDoc,
} satisfies Record<keyof FacetsQuery, ParameterDoc>;

export const releaseListParameterDocs = {
  ...facetsParameterDocs,
  limit: { schema: z.number().int().min(1).max(limits.maxPageSize).default(limits.defaultPageSize) },
  // The codec judges a cursor; longer than this it is an `invalid-cursor` unread.
  cursor: { schema: z.string().max(limits.maxCursorLength) },
  sort: { schema: z.enum(sortOrders) },
} satisfies Record<keyof ReleaseListQuery, ParameterDoc>;

import { z } from 'zod';
import { commaListProblem, isLanguageTag, splitCommaList } from './comma-list.js';
import { defaultSortOrder, limits, releaseTypes, sortOrders, type SortOrder } from './limits.js';

/** `rel_` + URL-safe characters. */
export const releaseIdPattern = /^rel_[A-Za-z0-9_-]{1,60}$/;

const isoTimestamp = z.string().datetime({ offset: false, precision: 3 });

export const ReleaseLinkSchema = z.object({
  site: z.string().min(1).max(64).describe('Where the link points, e.g. `youtube`, `niconico`, `vocadb`.'),
  url: z.string().url().max(2048),
});

/** A filter value as stored: non-empty, bounded, and free of commas (a comma could never be queried). */
const filterValue = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(limits.maxFilterValueLength, `${what} is at most ${limits.maxFilterValueLength} characters`)
    .refine((value) => !value.includes(','), `${what} must not contain a comma`);

const releaseDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in the form YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00.000Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date');

/** A release as the API returns it (SPEC §3.1): snake_case, every field always present. */
export const ReleaseSchema = z.object({
  id: z.string().regex(releaseIdPattern).describe('Stable, URL-safe identifier, prefixed `rel_`.'),
  title: z.string().min(1).max(512),
  artist: z.string().min(1).max(512).describe('Producer or circle credited.'),
  release_date: releaseDate.describe('Calendar date, `YYYY-MM-DD`.'),
  release_type: z.enum(releaseTypes),
  vocaloid_banks: z.array(filterValue('a voice bank name')).min(1).max(limits.maxFilterValues),
  genres: z.array(filterValue('a genre')).max(limits.maxFilterValues).describe('Lowercase genre names.'),
  languages: z
    .array(filterValue('a language tag').refine(isLanguageTag, 'must be a BCP 47 language tag'))
    .max(limits.maxFilterValues)
    .describe('BCP 47 language tags.'),
  track_count: z.number().int().min(1).max(10_000),
  cover_url: z.string().url().max(2048).nullable(),
  links: z.array(ReleaseLinkSchema).max(50),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});
export type Release = z.infer<typeof ReleaseSchema>;

/**
 * A release as `cli import` accepts it: the timestamps are the service's to keep, and genres are stored
 * lowercase whatever the file says.
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
function commaListParameter(description: string, checkValue?: (value: string) => string | undefined) {
  return queryParameter((raw) => {
    const values = splitCommaList(raw);
    const problem = commaListProblem(values) ?? values.map((value) => checkValue?.(value)).find(Boolean);
    return problem ? { problem } : { value: values };
  }).describe(description);
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

export const ReleaseListQuerySchema = z
  .object({
    vocaloid_banks: commaListParameter(
      'Comma-separated voice bank names, e.g. `Hatsune Miku,GUMI`. Case-insensitive exact match; a release matches when it has any of them.',
    ),
    genres: commaListParameter(
      'Comma-separated genre names, e.g. `rock,electropop`. Case-insensitive exact match; a release matches when it has any of them.',
    ),
    languages: commaListParameter(
      'Comma-separated BCP 47 language tags, e.g. `ja,en`. Case-insensitive; a release matches when it has any of them.',
      (value) => (isLanguageTag(value) ? undefined : `"${value}" is not a BCP 47 language tag`),
    ),
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
    sort: singleParameter<SortOrder>(
      defaultSortOrder,
      (text) => sortOrders.find((order) => order === text),
      `must be one of ${sortOrders.join(', ')}`,
    ).describe('`-release_date` (newest first, the default) or `release_date`; ties break on `id`.'),
  })
  .strict();
export type ReleaseListQuery = z.output<typeof ReleaseListQuerySchema>;

export const ReleaseListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    releases: z.array(ReleaseSchema),
    pagination: z
      .string()
      .describe('Cursor of the next page, to send back as `cursor`; the empty string on the last page.'),
    generated_at: isoTimestamp.describe('When this response was generated, ISO 8601 UTC with milliseconds.'),
  }),
});
export type ReleaseListResponse = z.infer<typeof ReleaseListResponseSchema>;

export const ReleaseResponseSchema = z.object({ success: z.literal(true), data: ReleaseSchema });

export const ReleaseIdParamsSchema = z.object({
  id: z.string().regex(releaseIdPattern, 'is not a release id (they look like rel_...)'),
});

export const FacetValueSchema = z.object({ value: z.string(), count: z.number().int().min(0) });
export type FacetValue = z.infer<typeof FacetValueSchema>;

export const FacetsResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    vocaloid_banks: z.array(FacetValueSchema),
    genres: z.array(FacetValueSchema),
    languages: z.array(FacetValueSchema),
    generated_at: isoTimestamp,
  }),
});
export type Facets = z.infer<typeof FacetsResponseSchema>['data'];

/**
 * How the list parameters look on the wire, for the OpenAPI document: the zod schemas above also accept the
 * repeated form and parse it, which a generator cannot express well.
 */
export const releaseListParameterDocs = {
  vocaloid_banks: { type: 'string', example: 'Hatsune Miku,GUMI' },
  genres: { type: 'string', example: 'electropop,rock' },
  languages: { type: 'string', example: 'ja,en' },
  limit: { type: 'integer', minimum: 1, maximum: limits.maxPageSize, default: limits.defaultPageSize },
  cursor: { type: 'string' },
  sort: { type: 'string', enum: [...sortOrders], default: defaultSortOrder },
} as const;

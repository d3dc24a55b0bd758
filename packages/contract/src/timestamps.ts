import { z } from 'zod';

/**
 * ISO 8601 UTC with milliseconds, `2026-11-22T08:00:00.000Z` (SPEC §3.1). The format is exactly 24 characters;
 * the bound says so to readers of the OpenAPI document, who do not see the format's regular expression.
 */
export const isoTimestamp = z.string().max(24).datetime({ offset: false, precision: 3 });

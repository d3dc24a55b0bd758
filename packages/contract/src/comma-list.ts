import { limits } from './limits.js';
import { writtenTextProblem } from './written-text.js';

/**
 * How a comma-separated filter is read (SPEC §3.1): values are trimmed, empty items are dropped, a repeated
 * parameter is the union of its values, and duplicates (case-insensitively) collapse to the first spelling.
 * Plain functions with no schema library, shared by the zod schemas and the SDK.
 */
export function splitCommaList(raw: string | readonly string[] | undefined): string[] {
  if (raw === undefined) return [];
  const parts = typeof raw === 'string' ? [raw] : raw;
  const seen = new Set<string>();
  const values: string[] = [];
  for (const part of parts) {
    for (const item of part.split(',')) {
      const value = item.trim();
      if (value === '') continue;
      const key = value.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      values.push(value);
    }
  }
  return values;
}

/**
 * Why a list of filter values is out of bounds or not text a person may write (`writtenTextProblem`), or
 * undefined when it is fine.
 */
export function commaListProblem(values: readonly string[]): string | undefined {
  if (values.length > limits.maxFilterValues) {
    return `takes at most ${limits.maxFilterValues} values; got ${values.length}`;
  }
  const tooLong = values.find((value) => value.length > limits.maxFilterValueLength);
  if (tooLong !== undefined) {
    return `values are at most ${limits.maxFilterValueLength} characters; one has ${tooLong.length}`;
  }
  for (const [index, value] of values.entries()) {
    const problem = writtenTextProblem(value);
    if (problem !== undefined) return `value ${index + 1} ${problem}`;
  }
  return undefined;
}

/** Why one occurrence of a filter parameter is too long to read, or undefined when it is not. */
export function commaListLengthProblem(raw: string): string | undefined {
  return raw.length > limits.maxFilterParameterLength
    ? `is at most ${limits.maxFilterParameterLength} characters (${limits.maxFilterValues} values of up to ${limits.maxFilterValueLength}, with separators); got ${raw.length}`
    : undefined;
}

/**
 * Whether a string is a well-formed BCP 47 language tag. `Intl.getCanonicalLocales` is the platform's own
 * validator (Node, browsers, Deno, Bun all ship it), so we do not carry a grammar of our own.
 */
export function isLanguageTag(value: string): boolean {
  if (value.length > limits.maxFilterValueLength || !/^[A-Za-z0-9-]+$/.test(value)) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

import { ReleaseInputSchema, type ParsedReleaseInput } from '@releases/contract';
import { issuesToErrors } from '../kernel/http-problem.js';

export interface ImportRowError {
  /** 1-based: the array index + 1 for JSON, the line number for JSON Lines. */
  row: number;
  message: string;
}

export type ParsedFile = { ok: true; releases: ParsedReleaseInput[] } | { ok: false; errors: ImportRowError[] };

/** Stop collecting after this many bad rows: enough to fix a file, not a flood. */
const maxReportedErrors = 50;

/**
 * Reads a JSON array or JSON Lines file of releases and validates every row with the contract's schema.
 * Nothing is written here: the caller writes all rows in one transaction only when there is no error.
 */
export function parseReleaseFile(text: string): ParsedFile {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  let rows: Array<{ row: number; value: unknown } | { row: number; error: string }>;
  if (trimmed.startsWith('[')) {
    let array: unknown;
    try {
      array = JSON.parse(trimmed) as unknown;
    } catch (error) {
      return { ok: false, errors: [{ row: 0, message: `the file is not valid JSON: ${(error as Error).message}` }] };
    }
    if (!Array.isArray(array)) return { ok: false, errors: [{ row: 0, message: 'expected a JSON array of releases' }] };
    rows = (array as unknown[]).map((value, index) => ({ row: index + 1, value }));
  } else {
    rows = [];
    trimmed.split(/\r?\n/).forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        rows.push({ row: index + 1, value: JSON.parse(line) });
      } catch {
        rows.push({ row: index + 1, error: 'is not valid JSON' });
      }
    });
  }
  if (rows.length === 0) return { ok: false, errors: [{ row: 0, message: 'the file holds no releases' }] };

  const releases: ParsedReleaseInput[] = [];
  const errors: ImportRowError[] = [];
  for (const entry of rows) {
    if (errors.length >= maxReportedErrors) break;
    if ('error' in entry) {
      errors.push({ row: entry.row, message: entry.error });
      continue;
    }
    const result = ReleaseInputSchema.safeParse(entry.value);
    if (result.success) releases.push(result.data);
    else {
      const details = issuesToErrors(result.error, 'pointer').map((e) => `${e.pointer ?? ''} ${e.detail}`.trim());
      errors.push({ row: entry.row, message: details.join('; ') });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, releases };
}

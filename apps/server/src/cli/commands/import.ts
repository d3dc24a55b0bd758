import { readFile } from 'node:fs/promises';
import { parseReleaseFile } from '../../catalogue/import.js';
import type { Services } from '../../services.js';
import { UsageError, type CommandArgs, type Output } from '../output.js';
import { text } from '../printable.js';

/** Upserts releases from a JSON array or JSON Lines file: every row validated, all or nothing. */
export async function importReleases(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const file = args.positionals[0];
  if (!file) throw new UsageError(text`import needs a FILE`);
  const parsed = parseReleaseFile(await readFile(file, 'utf8'));
  if (!parsed.ok) {
    for (const error of parsed.errors) output.note(text`row ${error.row}: ${error.message}`);
    output.note(text`Nothing was imported: ${parsed.errors.length} row(s) failed validation.`);
    if (output.json) output.result({ imported: 0, errors: parsed.errors }, text``);
    return 1;
  }
  const result = await services.storage.catalogueWrites.upsertReleases(parsed.releases, new Date(services.clock.now()));
  output.result(
    { ...result },
    text`Imported ${parsed.releases.length} rows: ${result.inserted} inserted, ${result.updated} updated.`,
  );
  return 0;
}

import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Loading a whole catalogue at once (`cli seed`) into an empty database, the way both databases' manuals
 * advise: rows first, indexes after. A million releases arrive in id order, but their date index and the
 * tag rows (keyed by tag value, then date) arrive in random order; kept up to date row by row, those B-trees
 * take a random page per row and most of the load's time (about three minutes for a million on either
 * database here). Built once at the end, from sorted input, they take seconds.
 *
 * All of it happens in the load's transaction: a load that fails leaves the tables, indexes included, as they
 * were. On PostgreSQL the catalogue tables stay locked until it commits, so other instances' reads wait (a 503
 * past the statement timeout) rather than see half a catalogue. Each backend lists its indexes from its own
 * catalog (`Backend.loadIntoEmptyCatalogue`), so what is rebuilt is exactly what the migrations made.
 */

/** The catalogue tables whose indexes a load into an empty catalogue builds after the rows. */
export const catalogueTables = ['releases', 'release_tags'] as const;

export interface IndexDefinition {
  table: string;
  name: string;
  /** `constraint`: a primary key, dropped and added with its table; `index`: `CREATE INDEX`. */
  kind: 'index' | 'constraint';
  /** As the database itself describes it. */
  definition: string;
}

/** Runs `work` with `indexes` dropped before it and built again after it, in the same transaction. */
export async function withIndexesBuiltAfter<T>(
  trx: Transaction<Database>,
  indexes: IndexDefinition[],
  work: () => Promise<T>,
): Promise<T> {
  for (const index of indexes) {
    await (
      index.kind === 'constraint'
        ? sql`alter table ${sql.table(index.table)} drop constraint ${sql.id(index.name)}`
        : sql`drop index ${sql.id(index.name)}`
    ).execute(trx);
  }
  const result = await work();
  for (const index of indexes) {
    await (
      index.kind === 'constraint'
        ? sql`alter table ${sql.table(index.table)} add constraint ${sql.id(index.name)} ${sql.raw(index.definition)}`
        : sql.raw(index.definition)
    ).execute(trx);
  }
  return result;
}

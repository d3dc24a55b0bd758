import { sql, type Kysely, type Transaction } from 'kysely';
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
 * past the statement timeout) rather than see half a catalogue.
 */

type Executor = Kysely<Database> | Transaction<Database>;

interface IndexDefinition {
  table: string;
  name: string;
  /** `constraint`: a primary key, dropped and added with its table; `index`: `CREATE INDEX`. */
  kind: 'index' | 'constraint';
  /** As the database itself describes it, so what is rebuilt is exactly what the migrations made. */
  definition: string;
}

/** The catalogue tables' indexes, read back from the database's own catalog. */
async function catalogueIndexes(trx: Executor, dialect: 'sqlite' | 'postgres'): Promise<IndexDefinition[]> {
  if (dialect === 'postgres') {
    const { rows } = await sql<IndexDefinition>`
      select t.relname as "table", i.relname as name,
        case when c.oid is null then 'index' else 'constraint' end as kind,
        coalesce(pg_get_constraintdef(c.oid), pg_get_indexdef(i.oid)) as definition
      from pg_index x
        join pg_class i on i.oid = x.indexrelid
        join pg_class t on t.oid = x.indrelid
        left join pg_constraint c on c.conindid = i.oid and c.conrelid = t.oid
      where t.relnamespace = current_schema()::regnamespace and t.relname in ('releases', 'release_tags')
      order by i.relname`.execute(trx);
    return rows;
  }
  // SQLite: the indexes made by CREATE INDEX; primary keys are part of their tables and stay.
  const { rows } = await sql<IndexDefinition>`
    select tbl_name as "table", name, 'index' as kind, sql as definition from sqlite_master
    where type = 'index' and sql is not null and tbl_name in ('releases', 'release_tags')
    order by name`.execute(trx);
  return rows;
}

/** Runs `work` (the inserts of a load into an empty catalogue) with the catalogue's indexes built after it. */
export async function withIndexesBuiltAfter<T>(
  trx: Executor,
  dialect: 'sqlite' | 'postgres',
  work: () => Promise<T>,
): Promise<T> {
  const indexes = await catalogueIndexes(trx, dialect);
  for (const index of indexes) {
    await (
      index.kind === 'constraint'
        ? sql`alter table ${sql.table(index.table)} drop constraint ${sql.id(index.name)}`
        : sql`drop index ${sql.id(index.name)}`
    ).execute(trx);
  }
  const result = await work();
  if (dialect === 'sqlite') await copyStagedTagRows(trx);
  // Sorting a few million index entries in memory rather than in temporary files, for this transaction only.
  if (dialect === 'postgres') await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
  for (const index of indexes) {
    await (
      index.kind === 'constraint'
        ? sql`alter table ${sql.table(index.table)} add constraint ${sql.id(index.name)} ${sql.raw(index.definition)}`
        : sql.raw(index.definition)
    ).execute(trx);
  }
  return result;
}

/**
 * SQLite keeps `release_tags` in its primary key's order (a WITHOUT ROWID table): there is no index to drop,
 * the table is one. During a load into an empty catalogue its rows go to a temporary table as they come
 * (appends), and are copied over sorted at the end.
 */
export async function createTagStaging(trx: Executor): Promise<void> {
  await sql`create temp table release_tags_staged (
    kind integer not null, value_key text not null, release_date text not null, release_id text not null)`.execute(trx);
}

export async function stageTagRows(
  trx: Executor,
  rows: Array<{ kind: number; value_key: string; release_date: string; release_id: string }>,
): Promise<void> {
  const values = rows.map((row) => sql`(${row.kind}, ${row.value_key}, ${row.release_date}, ${row.release_id})`);
  await sql`insert into temp.release_tags_staged (kind, value_key, release_date, release_id)
    values ${sql.join(values)}`.execute(trx);
}

async function copyStagedTagRows(trx: Executor): Promise<void> {
  await sql`insert into release_tags (kind, value_key, release_date, release_id)
    select kind, value_key, release_date, release_id from temp.release_tags_staged
    order by kind, value_key, release_date, release_id`.execute(trx);
  await sql`drop table temp.release_tags_staged`.execute(trx);
}

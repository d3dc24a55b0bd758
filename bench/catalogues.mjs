// Where `pnpm bench` keeps each catalogue it seeds, so that `pnpm bench:profile` finds the same one.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The folder of a catalogue's SQLite file and the bench's other working files. */
export function catalogueFolder(database, rows) {
  return path.join(here, '.work', `${database}-${rows}`);
}

/** The PostgreSQL server the bench uses: BENCH_DATABASE_URL, or the local test database. */
export const postgresServerUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A PostgreSQL catalogue's schema: one per size. */
export function postgresCatalogueSchema(rows) {
  return `bench_${rows}`;
}

/** A connection URL that reads and writes a PostgreSQL catalogue's schema. */
export function postgresCatalogueUrl(rows) {
  const options = encodeURIComponent(`-c search_path=${postgresCatalogueSchema(rows)}`);
  return `${postgresServerUrl}${postgresServerUrl.includes('?') ? '&' : '?'}options=${options}`;
}

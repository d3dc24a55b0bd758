import { sql, type Kysely, type Migration, type MigrationProvider, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { searchIndexRows } from './catalogue/search-rows.js';

/**
 * One set of migrations for SQLite and PostgreSQL. Append new ones; never edit one that has shipped.
 * Types are kept to the common subset (text, integer); `clustered` is what makes a table kept in its primary
 * key's order where the database can (`Backend.clusteredTable`).
 */
function migrations(clustered: RawBuilder<unknown>): Record<string, Migration> {
  return {
    '0001_catalogue': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('releases')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('artist', 'text', (c) => c.notNull())
          .addColumn('release_date', 'text', (c) => c.notNull())
          .addColumn('release_type', 'text', (c) => c.notNull())
          .addColumn('track_count', 'integer', (c) => c.notNull())
          .addColumn('cover_url', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('doc', 'text', (c) => c.notNull())
          .execute();
        // Unfiltered pages walk this index in either direction.
        await db.schema.createIndex('releases_by_date').on('releases').columns(['release_date', 'id']).execute();

        await db.schema
          .createTable('release_tags')
          .addColumn('kind', 'integer', (c) => c.notNull())
          .addColumn('value_key', 'text', (c) => c.notNull())
          .addColumn('release_date', 'text', (c) => c.notNull())
          .addColumn('release_id', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('release_tags_pk', ['kind', 'value_key', 'release_date', 'release_id'])
          .modifyEnd(clustered)
          .execute();
        // Checks "does this release also match filter B" and finds a release's tags on update.
        await db.schema
          .createIndex('release_tags_by_release')
          .on('release_tags')
          .columns(['release_id', 'kind', 'value_key'])
          .execute();

        await db.schema
          .createTable('facet_values')
          .addColumn('kind', 'integer', (c) => c.notNull())
          .addColumn('value_key', 'text', (c) => c.notNull())
          .addColumn('display', 'text', (c) => c.notNull())
          .addColumn('release_count', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('facet_values_pk', ['kind', 'value_key'])
          .execute();

        await db.schema
          .createTable('catalogue_state')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db
          .insertInto('catalogue_state' as never)
          .values({ id: 1, version: 0, updated_at: new Date(0).toISOString() })
          .execute();
      },
    },
    '0002_accounts_and_keys': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('users')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('display_start', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text')
          .addColumn('revoked_at', 'text')
          .addColumn('last_used_at', 'text')
          .execute();
        await db.schema.createIndex('api_keys_by_owner').on('api_keys').columns(['owner_id', 'created_at']).execute();

        await db.schema
          .createTable('sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('last_seen_at', 'text', (c) => c.notNull())
          .addColumn('idle_expires_at', 'text', (c) => c.notNull())
          .addColumn('absolute_expires_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('sessions_by_user').on('sessions').columns(['user_id']).execute();

        await db.schema
          .createTable('server_secrets')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '0003_external_key_ids': externalKeyIds(),
    '0004_account_lifecycle': accountLifecycle(),
    '0005_search': search(),
  };
}

/** Releases already stored when search arrived, indexed in batches of this many. */
const searchBackfillBatch = 1_000;

/**
 * Search (SPEC §3.6): each release's title and artist as search compares them, an index on the title for the
 * first relevance tier, and the search keys in `release_tags` (`db/catalogue/search-rows.ts`), counted in
 * `facet_values` like the filters' values. A catalogue stored before is indexed here, in id order.
 */
function search(): Migration {
  return {
    async up(untyped: Kysely<unknown>) {
      // All or nothing: PostgreSQL runs each migration in a transaction, but Kysely runs SQLite's without one,
      // and a backfill cut short there would leave keys that the next attempt's inserts collide with.
      const db = untyped as Kysely<Database>;
      if (db.isTransaction) await indexForSearch(db);
      else await db.transaction().execute((trx) => indexForSearch(trx));
    },
  };
}

async function indexForSearch(db: Kysely<Database>): Promise<void> {
  for (const column of ['search_title', 'search_artist']) {
    await db.schema
      .alterTable('releases')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  }
  await db.schema
    .createIndex('releases_by_search_title')
    .on('releases')
    .columns(['search_title', 'release_date', 'id'])
    .execute();
  for (let after = ''; ;) {
    const releases = await db
      .selectFrom('releases')
      .select(['id', 'title', 'artist', 'release_date'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(searchBackfillBatch)
      .execute();
    if (releases.length === 0) break;
    const keys = new Map<string, { kind: number; value_key: string; display: string; release_count: number }>();
    for (const release of releases) {
      const rows = searchIndexRows(release);
      await db
        .updateTable('releases')
        .set({ search_title: rows.search_title, search_artist: rows.search_artist })
        .where('id', '=', release.id)
        .execute();
      for (let i = 0; i < rows.tags.length; i += 100) {
        await db
          .insertInto('release_tags')
          .values(rows.tags.slice(i, i + 100))
          .execute();
      }
      for (const tag of rows.tags) {
        keys.set(`${tag.kind}:${tag.value_key}`, {
          kind: tag.kind,
          value_key: tag.value_key,
          display: tag.value_key,
          release_count: 0,
        });
      }
    }
    const values = [...keys.values()];
    for (let i = 0; i < values.length; i += 100) {
      await db
        .insertInto('facet_values')
        .values(values.slice(i, i + 100))
        .onConflict((oc) => oc.columns(['kind', 'value_key']).doNothing())
        .execute();
    }
    after = releases[releases.length - 1]!.id;
  }
  await sql`update facet_values set release_count = (select count(*) from release_tags t
    where t.kind = facet_values.kind and t.value_key = facet_values.value_key) where kind >= 4`.execute(db);
}

/**
 * The account's lifecycle (SPEC §3.7): the browser or client each session was started from, to tell the user's
 * sessions apart (null for sessions from before), and pending password resets, one per user.
 */
function accountLifecycle(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
      await db.schema
        .createTable('password_resets')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}

/** Keys kept by an external key manager: its id for each key, looked up when it verifies one. */
function externalKeyIds(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('api_keys').addColumn('external_id', 'text').execute();
      await db.schema.createIndex('api_keys_by_external_id').on('api_keys').column('external_id').unique().execute();
    },
  };
}

export function migrationProvider(clustered: RawBuilder<unknown>): MigrationProvider {
  return { getMigrations: async () => migrations(clustered) };
}

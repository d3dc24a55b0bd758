import type { Kysely, Migration, MigrationProvider, RawBuilder } from 'kysely';

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
  };
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

import { Migrator, sql } from 'kysely';
import { KyselyAccountStore } from './accounts/account-store.js';
import { guarded, type Backend } from './backend.js';
import { KyselyApiKeyStore } from './accounts/api-key-store.js';
import { CatalogueCache, KyselyCatalogueReads } from './catalogue/catalogue-reads.js';
import { KyselyCatalogueWrites } from './catalogue/catalogue-writes.js';
import type { PoolUse } from '../metrics/metrics.js';
import type { Storage } from './interface.js';
export type { Backend } from './backend.js';
import { migrationProvider } from './migrations.js';
import { KyselyPasswordResetStore } from './accounts/password-reset-store.js';
import { KyselySecretStore } from './accounts/secret-store.js';
import { KyselySessionStore } from './accounts/session-store.js';

export interface StorageOptions {
  /** Whether catalogue reads keep the catalogue in memory (`CatalogueIndex`); default true. */
  catalogueIndex?: boolean;
}

/** The storage of one database: each part of `Storage` from its own module, over one backend. */
export class KyselyStorage implements Storage {
  readonly catalogue: KyselyCatalogueReads;
  readonly catalogueWrites: KyselyCatalogueWrites;
  readonly accounts: KyselyAccountStore;
  readonly sessions: KyselySessionStore;
  readonly passwordResets: KyselyPasswordResetStore;
  readonly keys: KyselyApiKeyStore;
  readonly secrets: KyselySecretStore;

  constructor(
    private readonly backend: Backend,
    options: StorageOptions = {},
  ) {
    // Reads cache pages and planner statistics; writes on this connection must drop them at once.
    const cache = new CatalogueCache();
    this.catalogue = new KyselyCatalogueReads(backend, cache, { index: options.catalogueIndex ?? true });
    this.catalogueWrites = new KyselyCatalogueWrites(backend, cache);
    this.accounts = new KyselyAccountStore(backend);
    this.sessions = new KyselySessionStore(backend);
    this.passwordResets = new KyselyPasswordResetStore(backend);
    this.keys = new KyselyApiKeyStore(backend);
    this.secrets = new KyselySecretStore(backend);
  }

  async migrate(): Promise<void> {
    const db = this.backend.db;
    // Kysely looks for its bookkeeping tables in every schema unless told which (`Backend.migrationSchema`).
    const schema = await this.backend.migrationSchema();
    const migrator = new Migrator({
      db,
      provider: migrationProvider(this.backend.clusteredTable),
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    // Several processes may start at once (instances, the CLI): a migration refused because another one is
    // writing is tried again (`guarded`); Kysely's migration lock keeps each migration to one of them.
    await guarded(this.backend, async () => {
      const { error, results } = await migrator.migrateToLatest();
      if (error === undefined) return;
      if (error instanceof Error && this.backend.isBusy(error)) throw error;
      const failed = results?.find((result) => result.status === 'Error');
      throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
    });
  }

  ping(): Promise<void> {
    return guarded(this.backend, async () => {
      await this.backend.read(sql`select 1 as ok`.compile(this.backend.db));
    });
  }

  poolUse(): PoolUse | undefined {
    return this.backend.poolUse?.();
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

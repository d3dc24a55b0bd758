import { sql } from 'kysely';
import type { ApiKeyRecord, ApiKeyStore, InsertKeyResult } from '../interface.js';
import { guarded, type Backend } from '../backend.js';
import type { ApiKeysTable } from '../schema.js';

function toApiKeyRecord(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.owner_id,
    keyHash: row.key_hash,
    externalId: row.external_id,
    displayStart: row.display_start,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function toRow(record: ApiKeyRecord): ApiKeysTable {
  return {
    id: record.id,
    name: record.name,
    owner_id: record.ownerId,
    key_hash: record.keyHash,
    external_id: record.externalId,
    display_start: record.displayStart,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: record.lastUsedAt,
  };
}

export class KyselyApiKeyStore implements ApiKeyStore {
  constructor(private readonly backend: Backend) {}

  insert(record: ApiKeyRecord, options: { maxActive?: number } = {}): Promise<InsertKeyResult> {
    const { maxActive } = options;
    const ownerId = record.ownerId;
    if (maxActive === undefined || ownerId === null) {
      return guarded(this.backend, async () => {
        await this.backend.db.insertInto('api_keys').values(toRow(record)).execute();
        return { inserted: true } as const;
      });
    }
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        // Two concurrent creations must not both count 24 and both insert: they take turns on the owner.
        await this.backend.lockUser(trx, ownerId);
        const row = toRow(record);
        const active = trx
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('owner_id', '=', ownerId)
          .where('revoked_at', 'is', null)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', record.createdAt)]));
        const result = await trx
          .insertInto('api_keys')
          .columns(Object.keys(row) as Array<keyof ApiKeysTable>)
          .expression(
            trx
              .selectNoFrom(Object.entries(row).map(([name, value]) => sql`${value}`.as(name)))
              .where(active, '<', maxActive),
          )
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
          ? ({ inserted: true } as const)
          : ({ inserted: false, reason: 'too-many-active-keys' } as const);
      }),
    );
  }

  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.findOne('key_hash', keyHash);
  }

  findByExternalId(externalId: string): Promise<ApiKeyRecord | undefined> {
    return this.findOne('external_id', externalId);
  }

  findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.findOne('id', id);
  }

  private findOne(column: 'key_hash' | 'external_id' | 'id', value: string): Promise<ApiKeyRecord | undefined> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<ApiKeysTable>(
        this.backend.db.selectFrom('api_keys').selectAll().where(column, '=', value).compile(),
      );
      return rows[0] ? toApiKeyRecord(rows[0]) : undefined;
    });
  }

  list(ownerId?: string | null): Promise<ApiKeyRecord[]> {
    return guarded(this.backend, async () => {
      let query = this.backend.db
        .selectFrom('api_keys')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc');
      if (ownerId === null) query = query.where('owner_id', 'is', null);
      else if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId);
      return (await this.backend.read(query.compile())).map(toApiKeyRecord);
    });
  }

  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined> {
    return guarded(this.backend, async () => {
      const db = this.backend.db;
      // Only the first revocation sets the time; revoking again answers with the record as it stands.
      await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      const [row] = await this.backend.read(db.selectFrom('api_keys').selectAll().where('id', '=', id).compile());
      return row ? toApiKeyRecord(row) : undefined;
    });
  }

  touch(uses: ReadonlyArray<{ id: string; at: string }>): Promise<void> {
    if (uses.length === 0) return Promise.resolve();
    return guarded(
      this.backend,
      () =>
        this.backend.db.transaction().execute(async (trx) => {
          for (const use of uses) {
            // Never move last use backwards (two instances may report the same key out of order).
            await trx
              .updateTable('api_keys')
              .set({ last_used_at: use.at })
              .where('id', '=', use.id)
              .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', use.at)]))
              .execute();
          }
        }),
      // Last use can wait for the next batch: never queue behind an import for it.
      { whenBusy: 'skip' },
    );
  }
}

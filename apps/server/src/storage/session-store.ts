import type { SessionRecord, SessionStore } from './interface.js';
import { guarded, type Backend } from './backend.js';
import type { SessionsTable } from './schema.js';

export function sessionRow(session: SessionRecord): SessionsTable {
  return {
    id: session.id,
    user_id: session.userId,
    token_hash: session.tokenHash,
    created_at: session.createdAt,
    last_seen_at: session.lastSeenAt,
    idle_expires_at: session.idleExpiresAt,
    absolute_expires_at: session.absoluteExpiresAt,
  };
}

function toSessionRecord(row: SessionsTable): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    idleExpiresAt: row.idle_expires_at,
    absoluteExpiresAt: row.absolute_expires_at,
  };
}

export class KyselySessionStore implements SessionStore {
  constructor(private readonly backend: Backend) {}

  insert(session: SessionRecord): Promise<void> {
    return guarded(this.backend, async () => {
      await this.backend.db.insertInto('sessions').values(sessionRow(session)).execute();
    });
  }

  findByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<SessionsTable>(
        this.backend.db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).compile(),
      );
      return rows[0] ? toSessionRecord(rows[0]) : undefined;
    });
  }

  extend(id: string, lastSeenAt: string, idleExpiresAt: string): Promise<boolean> {
    return guarded(this.backend, async () => {
      const result = await this.backend.db
        .updateTable('sessions')
        .set({ last_seen_at: lastSeenAt, idle_expires_at: idleExpiresAt })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  delete(id: string): Promise<void> {
    return guarded(this.backend, async () => {
      await this.backend.db.deleteFrom('sessions').where('id', '=', id).execute();
    });
  }

  deleteExpired(now: string, userId?: string): Promise<number> {
    return guarded(this.backend, async () => {
      // ISO 8601 UTC timestamps of one fixed width compare correctly as text, in both dialects.
      let query = this.backend.db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('idle_expires_at', '<=', now), eb('absolute_expires_at', '<=', now)]));
      if (userId !== undefined) query = query.where('user_id', '=', userId);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
}

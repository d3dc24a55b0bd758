import type { Transaction } from 'kysely';
import type { EndingSessions, SessionRecord, SessionSelection, SessionStore } from '../interface.js';
import { guarded, type Backend } from '../backend.js';
import type { Database, SessionsTable } from '../schema.js';

export function sessionRow(session: SessionRecord): SessionsTable {
  return {
    id: session.id,
    user_id: session.userId,
    token_hash: session.tokenHash,
    created_at: session.createdAt,
    last_seen_at: session.lastSeenAt,
    idle_expires_at: session.idleExpiresAt,
    absolute_expires_at: session.absoluteExpiresAt,
    user_agent: session.userAgent,
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
    userAgent: row.user_agent,
  };
}

/**
 * Deletes some of a user's sessions inside a transaction, and tells `ending` which before the transaction
 * commits: until then no other connection (nor this instance's reads, on their own connection) sees them gone,
 * so by the time any request could find a row missing, this instance already refuses its session.
 */
export async function deleteSessionsIn(
  trx: Transaction<Database>,
  userId: string,
  which: SessionSelection,
  ending: EndingSessions,
): Promise<number> {
  let query = trx.deleteFrom('sessions').where('user_id', '=', userId);
  if (which !== 'all')
    query = 'only' in which ? query.where('id', '=', which.only) : query.where('id', '!=', which.allBut);
  const rows = await query.returning(['id', 'token_hash']).execute();
  ending(rows.map((row) => ({ id: row.id, tokenHash: row.token_hash })));
  return rows.length;
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

  listLive(userId: string, now: string, limit: number): Promise<SessionRecord[]> {
    return guarded(this.backend, async () => {
      const rows = await this.backend.read<SessionsTable>(
        this.backend.db
          .selectFrom('sessions')
          .selectAll()
          .where('user_id', '=', userId)
          .where('idle_expires_at', '>', now)
          .where('absolute_expires_at', '>', now)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .compile(),
      );
      return rows.map(toSessionRecord);
    });
  }

  deleteOfUser(userId: string, which: SessionSelection, ending: EndingSessions): Promise<number> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute((trx) => deleteSessionsIn(trx, userId, which, ending)),
    );
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

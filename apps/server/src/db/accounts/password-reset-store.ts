import type { EndingSessions, PasswordResetRecord, PasswordResetStore } from '../interface.js';
import { guarded, type Backend } from '../backend.js';
import { deleteSessionsIn } from './session-store.js';

/** Pending password resets (SPEC §3.7): one per user, by the SHA-256 of its token. */
export class KyselyPasswordResetStore implements PasswordResetStore {
  constructor(private readonly backend: Backend) {}

  replace(record: PasswordResetRecord): Promise<void> {
    return guarded(this.backend, async () => {
      const row = {
        user_id: record.userId,
        token_hash: record.tokenHash,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
      };
      // One row per user: a newer link replaces the older, which stops working at once.
      await this.backend.db
        .insertInto('password_resets')
        .values(row)
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({
            token_hash: row.token_hash,
            created_at: row.created_at,
            expires_at: row.expires_at,
          }),
        )
        .execute();
    });
  }

  findLive(tokenHash: string, now: string): Promise<string | undefined> {
    return guarded(this.backend, async () => {
      const [row] = await this.backend.read(
        this.backend.db
          .selectFrom('password_resets')
          .select('user_id')
          .where('token_hash', '=', tokenHash)
          .where('expires_at', '>', now)
          .compile(),
      );
      return row?.user_id;
    });
  }

  consume(tokenHash: string, now: string, passwordHash: string, ending: EndingSessions): Promise<string | undefined> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        // Deleting the row is what uses the token up: of two concurrent uses, the second finds nothing to delete
        // (PostgreSQL makes it wait for the first's commit, then re-checks; SQLite runs one writer at a time).
        const [used] = await trx
          .deleteFrom('password_resets')
          .where('token_hash', '=', tokenHash)
          .where('expires_at', '>', now)
          .returning('user_id')
          .execute();
        if (!used) return undefined;
        await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', used.user_id).execute();
        await deleteSessionsIn(trx, used.user_id, 'all', ending);
        return used.user_id;
      }),
    );
  }
}

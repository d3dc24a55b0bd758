import type {
  AccountStore,
  CreateUserResult,
  EndingSessions,
  SessionRecord,
  SessionSelection,
  UserRecord,
  UserWithPassword,
} from '../interface.js';
import { guarded, type Backend } from '../backend.js';
import { deleteSessionsIn, sessionRow } from './session-store.js';

export class KyselyAccountStore implements AccountStore {
  constructor(private readonly backend: Backend) {}

  findUserByEmail(email: string): Promise<UserWithPassword | undefined> {
    return guarded(this.backend, async () => {
      const [row] = await this.backend.read(
        this.backend.db
          .selectFrom('users')
          .select(['id', 'email', 'password_hash', 'created_at'])
          .where('email', '=', email)
          .compile(),
      );
      return row
        ? { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at }
        : undefined;
    });
  }

  findUserWithPassword(id: string): Promise<UserWithPassword | undefined> {
    return guarded(this.backend, async () => {
      const [row] = await this.backend.read(
        this.backend.db
          .selectFrom('users')
          .select(['id', 'email', 'password_hash', 'created_at'])
          .where('id', '=', id)
          .compile(),
      );
      return row
        ? { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at }
        : undefined;
    });
  }

  setPassword(
    userId: string,
    passwordHash: string,
    endSessions: SessionSelection,
    ending: EndingSessions,
  ): Promise<boolean> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('users')
          .set({ password_hash: passwordHash })
          .where('id', '=', userId)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return false;
        // A reset link mailed for the old password must not set another one after this.
        await trx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
        await deleteSessionsIn(trx, userId, endSessions, ending);
        return true;
      }),
    );
  }

  deleteUser(userId: string, ending: EndingSessions): Promise<{ sessions: number; keys: number } | undefined> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        // The user's row first: concurrent writes about the user (a key being created) wait for this to end.
        await this.backend.lockUser(trx, userId);
        // Foreign keys would cascade these; deleted by name so that the sessions are known (and refused) first.
        const sessions = await deleteSessionsIn(trx, userId, 'all', ending);
        const keys = await trx.deleteFrom('api_keys').where('owner_id', '=', userId).executeTakeFirst();
        await trx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
        const user = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
        if (Number(user.numDeletedRows) === 0) return undefined;
        return { sessions, keys: Number(keys.numDeletedRows) };
      }),
    );
  }

  findUserById(id: string): Promise<UserRecord | undefined> {
    return guarded(this.backend, async () => {
      const [row] = await this.backend.read(
        this.backend.db.selectFrom('users').select(['id', 'email', 'created_at']).where('id', '=', id).compile(),
      );
      return row ? { id: row.id, email: row.email, createdAt: row.created_at } : undefined;
    });
  }

  createUser(user: UserWithPassword, session?: SessionRecord): Promise<CreateUserResult> {
    return guarded(this.backend, () =>
      this.backend.db.transaction().execute(async (trx) => {
        // `on conflict do nothing` instead of catching a unique violation: a concurrent signup with the same
        // email is an answer (409), not an error, and the transaction stays usable in both dialects.
        const result = await trx
          .insertInto('users')
          .values({ id: user.id, email: user.email, password_hash: user.passwordHash, created_at: user.createdAt })
          .onConflict((oc) => oc.column('email').doNothing())
          .executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0)
          return { created: false, reason: 'email-taken' } as const;
        if (session) await trx.insertInto('sessions').values(sessionRow(session)).execute();
        return { created: true } as const;
      }),
    );
  }
}

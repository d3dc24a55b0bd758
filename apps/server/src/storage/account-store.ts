import type { AccountStore, CreateUserResult, SessionRecord, UserRecord, UserWithPassword } from './interface.js';
import { guarded, type Backend } from './backend.js';
import { sessionRow } from './session-store.js';

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

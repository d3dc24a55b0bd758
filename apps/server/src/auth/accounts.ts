import type { User } from '@releases/contract';
import type { Clock } from '../kernel/clock.js';
import type { KeyManager } from '../keys/key-manager.js';
import type { AccountStore, ApiKeyStore, SessionRecord, UserRecord, UserWithPassword } from '../db/interface.js';
import { newId } from '../kernel/crypto.js';
import type { PasswordHasher } from './passwords.js';
import type { PasswordPolicy } from './password-policy.js';
import type { SessionService } from './sessions.js';
import { StorageConflictError } from '../db/errors.js';

export interface SignedIn {
  user: UserRecord;
  token: string;
  session: SessionRecord;
}

export function userJson(user: UserRecord): User {
  return { id: user.id, email: user.email, created_at: user.createdAt };
}

export interface AccountServiceDeps {
  passwords: PasswordHasher;
  accounts: AccountStore;
  sessions: SessionService;
  /** Revokes a deleted account's keys where they are verified (Unkey, under `KEY_MANAGER=unkey`). */
  keys: KeyManager;
  keyStore: ApiKeyStore;
  policy: PasswordPolicy;
  clock: Clock;
}

/** What an account's deletion took with it. */
export interface DeletedAccount {
  sessions: number;
  keys: number;
}

/**
 * Accounts: signing up and in, passwords, and deletion. Emails arrive trimmed and lower-cased (the contract's
 * schema does it).
 */
export class AccountService {
  private readonly accounts: AccountStore;
  private readonly sessions: SessionService;

  constructor(private readonly deps: AccountServiceDeps) {
    this.accounts = deps.accounts;
    this.sessions = deps.sessions;
  }

  /**
   * Why `password` may not be the new password of the account with `email` (common, a repeat, the email), or
   * undefined. The contract has checked its length already.
   */
  newPasswordProblem(password: string, email: string): string | undefined {
    return this.deps.policy.problem(password, email);
  }

  /** Creates an account without signing it in (the CLI). */
  async createUser(email: string, password: string): Promise<UserRecord | 'email-taken'> {
    const user = {
      id: newId('usr'),
      email,
      passwordHash: await this.deps.passwords.hash(password),
      createdAt: this.now(),
    };
    const result = await this.accounts.createUser(user);
    return result.created ? user : result.reason;
  }

  /** Creates an account and its first session, in one transaction. */
  async signup(email: string, password: string, userAgent: string | null): Promise<SignedIn | 'email-taken'> {
    const passwordHash = await this.deps.passwords.hash(password);
    const user = { id: newId('usr'), email, passwordHash, createdAt: this.now() };
    const { token, session } = this.sessions.mint(user.id, userAgent);
    const result = await this.accounts.createUser(user, session);
    return result.created ? { user, token, session } : result.reason;
  }

  /**
   * A new session for the right password, else undefined. An unknown email costs the same hashing as a wrong
   * password, so timing does not reveal which emails have accounts.
   */
  async login(email: string, password: string, userAgent: string | null): Promise<SignedIn | undefined> {
    const user = await this.accounts.findUserByEmail(email);
    const good = await this.deps.passwords.verify(password, user?.passwordHash);
    if (!user || !good) return undefined;
    await this.sessions.sweep(user.id);
    try {
      const { token, session } = await this.sessions.start(user.id, userAgent);
      return { user: { id: user.id, email: user.email, createdAt: user.createdAt }, token, session };
    } catch (error) {
      // The account was deleted while its password was checked: signing in to it is what an unknown email is.
      if (error instanceof StorageConflictError && error.reason === 'missing-reference') return undefined;
      throw error;
    }
  }

  /** A signed-in user's account, for checking its password; undefined when it is gone. */
  findUser(userId: string): Promise<UserWithPassword | undefined> {
    return this.accounts.findUserWithPassword(userId);
  }

  /** Whether `password` is the account's (constant time, the same work whatever the answer). */
  checkPassword(user: UserWithPassword, password: string): Promise<boolean> {
    return this.deps.passwords.verify(password, user.passwordHash);
  }

  /**
   * Sets a new password; in the same transaction every session of the user ends, but `keptSessionId` (the one
   * that asked) when given. False when the user is gone.
   */
  async setPassword(userId: string, password: string, keptSessionId?: string): Promise<boolean> {
    const passwordHash = await this.deps.passwords.hash(password);
    return this.accounts.setPassword(
      userId,
      passwordHash,
      keptSessionId === undefined ? 'all' : { allBut: keptSessionId },
      this.sessions.forget,
    );
  }

  /**
   * Deletes an account: its API keys are revoked through the key manager first (at Unkey, under
   * `KEY_MANAGER=unkey`), so that a key never outlives its account there; if that fails it throws (a 503) and
   * nothing is deleted here. Then the user, its sessions, key rows and pending reset go in one transaction.
   * Undefined when the account was gone already.
   */
  async deleteAccount(userId: string): Promise<DeletedAccount | undefined> {
    for (const key of await this.deps.keyStore.list(userId)) {
      if (key.revokedAt === null) await this.deps.keys.revoke(key.id);
    }
    return this.accounts.deleteUser(userId, this.sessions.forget);
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

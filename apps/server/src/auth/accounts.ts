import type { User } from '@releases/contract';
import type { Clock } from '../clock.js';
import type { AccountStore, SessionRecord, UserRecord } from '../storage/interface.js';
import { newId } from '../crypto.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { SessionService } from './sessions.js';

export interface SignedIn {
  user: UserRecord;
  token: string;
  session: SessionRecord;
}

export function userJson(user: UserRecord): User {
  return { id: user.id, email: user.email, created_at: user.createdAt };
}

/** Signing up and in. Emails arrive trimmed and lower-cased (the contract's schema does it). */
export class AccountService {
  constructor(
    private readonly accounts: AccountStore,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
  ) {}

  /** Creates an account without signing it in (the CLI). */
  async createUser(email: string, password: string): Promise<UserRecord | 'email-taken'> {
    const user = { id: newId('usr'), email, passwordHash: await hashPassword(password), createdAt: this.now() };
    const result = await this.accounts.createUser(user);
    return result.created ? user : result.reason;
  }

  /** Creates an account and its first session, in one transaction. */
  async signup(email: string, password: string): Promise<SignedIn | 'email-taken'> {
    const passwordHash = await hashPassword(password);
    const user = { id: newId('usr'), email, passwordHash, createdAt: this.now() };
    const { token, session } = this.sessions.mint(user.id);
    const result = await this.accounts.createUser(user, session);
    return result.created ? { user, token, session } : result.reason;
  }

  /**
   * A new session for the right password, else undefined. An unknown email costs the same hashing as a wrong
   * password, so timing does not reveal which emails have accounts.
   */
  async login(email: string, password: string): Promise<SignedIn | undefined> {
    const user = await this.accounts.findUserByEmail(email);
    const good = await verifyPassword(password, user?.passwordHash);
    if (!user || !good) return undefined;
    await this.sessions.sweep(user.id);
    const { token, session } = await this.sessions.start(user.id);
    return { user: { id: user.id, email: user.email, createdAt: user.createdAt }, token, session };
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

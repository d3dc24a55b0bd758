import type { Facets, ParsedReleaseInput } from '@releases/contract';
import type { CatalogueQuery, ReleasePage, ReleasePageRequest } from '../catalogue/query.js';
import type { PoolUse } from '../metrics/metrics.js';

/**
 * What the service keeps, split by reason: each consumer is handed the one small interface it needs
 * (routes read the catalogue, the CLI writes it, the key manager keeps keys...). One Kysely implementation
 * per interface (`accounts/*.ts`, `catalogue/*.ts`), over a `Backend` (`sqlite/`, `postgres/`), serves both
 * databases. Every method throws `StorageUnavailableError` when the database does not answer.
 */

// --- catalogue ------------------------------------------------------------------------------------------

export interface CatalogueReads {
  listReleases(request: ReleasePageRequest): Promise<ReleasePage>;
  getReleaseJson(id: string): Promise<string | undefined>;
  /** The facets (SPEC §3.6): of the whole catalogue, or in the context of a query. */
  facets(query: CatalogueQuery): Promise<Omit<Facets, 'generated_at'>>;
  /**
   * Starts reading, in the background, what answers facets in context from memory (every release's filter
   * values and search text), so that the first such requests after a start do not count in the database.
   * Settles when it is read (or could not be: then the database counts until the next try). Never rejects.
   */
  warmUp(): Promise<void>;
  /**
   * What the catalogue in memory holds now, for this generation of the catalogue: how many releases, read at
   * which catalogue version; undefined while it is not read (or `CATALOGUE_IN_MEMORY=false`).
   */
  inMemory(): { releases: number; version: number } | undefined;
  countReleases(): Promise<number>;
  /** Bumped by every catalogue write, on every instance. */
  catalogueVersion(): Promise<number>;
  /**
   * Names the catalogue as this storage's caches see it, without waiting on the database: it changes when this
   * storage writes, and within `Backend.changeCounter`'s bound when another process or instance does.
   * Undefined when nothing cached can be vouched for. A response built from reads made under one stamp may be
   * served again while the stamp stays the same.
   */
  cacheStamp(): number | undefined;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
}

export interface CatalogueWrites {
  /** Inserts or replaces releases by id in one transaction: all of them, or none. */
  upsertReleases(releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult>;
  /**
   * Loads releases only into an empty catalogue, atomically: of several instances starting at once on one
   * empty database, exactly one gets true (and seeds); the others find the catalogue filled.
   */
  seedIfEmpty(releases: ParsedReleaseInput[], now: Date): Promise<boolean>;
  /** Bulk load for synthetic catalogues: like upsert, in batches, with progress. */
  loadReleases(releases: Iterable<ParsedReleaseInput>, now: Date, onProgress?: (done: number) => void): Promise<number>;
}

// --- accounts and sessions ------------------------------------------------------------------------------

export interface UserRecord {
  id: string;
  email: string;
  createdAt: string;
}

export interface UserWithPassword extends UserRecord {
  /** The scrypt hash in its self-describing form, or null for an account that cannot sign in with one. */
  passwordHash: string | null;
}

export interface SessionRecord {
  id: string;
  userId: string;
  /** SHA-256 of the token; the token itself is never stored. */
  tokenHash: string;
  createdAt: string;
  lastSeenAt: string;
  idleExpiresAt: string;
  absoluteExpiresAt: string;
  /** The sign-in's `User-Agent` (its first 200 characters), or null. */
  userAgent: string | null;
}

/**
 * Told which sessions a transaction is about to delete, before it commits (so before any other connection can
 * see them gone): `SessionService.forget`, which refuses them on this instance from then on (SPEC §3.7).
 */
export type EndingSessions = (sessions: ReadonlyArray<Pick<SessionRecord, 'id' | 'tokenHash'>>) => void;

/** Which of a user's sessions to end. */
export type SessionSelection = { only: string } | { allBut: string } | 'all';

export type CreateUserResult = { created: true } | { created: false; reason: 'email-taken' };

export interface AccountStore {
  findUserByEmail(email: string): Promise<UserWithPassword | undefined>;
  findUserById(id: string): Promise<UserRecord | undefined>;
  /**
   * Creates an account, and its first session when one is given, in one transaction. An email already taken
   * (also by a concurrent signup) is reported, not thrown.
   */
  createUser(user: UserWithPassword, session?: SessionRecord): Promise<CreateUserResult>;
  /** The account with its password hash, by id (to check the password of a signed-in user). */
  findUserWithPassword(id: string): Promise<UserWithPassword | undefined>;
  /**
   * Sets the password and ends sessions (all, or all but the one given) in one transaction, and drops a pending
   * password reset; false when the user is gone.
   */
  setPassword(
    userId: string,
    passwordHash: string,
    endSessions: SessionSelection,
    ending: EndingSessions,
  ): Promise<boolean>;
  /**
   * Deletes the user with its sessions, API key rows and pending reset in one transaction; what it deleted, or
   * undefined when the user was already gone.
   */
  deleteUser(userId: string, ending: EndingSessions): Promise<{ sessions: number; keys: number } | undefined>;
}

export interface PasswordResetRecord {
  userId: string;
  /** SHA-256 of the token. */
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
}

export interface PasswordResetStore {
  /** Stores a user's pending reset, replacing any older one of theirs (only the newest link works). */
  replace(record: PasswordResetRecord): Promise<void>;
  /** The user a live (unused, unexpired at `now`) token belongs to, without using it up. */
  findLive(tokenHash: string, now: string): Promise<string | undefined>;
  /**
   * Uses a live token up and, in the same transaction, sets its user's password and ends every session of
   * theirs. At most one of several concurrent calls with one token gets the user id; the rest undefined.
   */
  consume(tokenHash: string, now: string, passwordHash: string, ending: EndingSessions): Promise<string | undefined>;
}

export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Moves a session's idle expiry (the sliding part); returns false when the session is gone. */
  extend(id: string, lastSeenAt: string, idleExpiresAt: string): Promise<boolean>;
  delete(id: string): Promise<void>;
  /** A user's live sessions at `now`, newest first, at most `limit`. */
  listLive(userId: string, now: string, limit: number): Promise<SessionRecord[]>;
  /** Deletes some of a user's sessions in one transaction, telling `ending` first; returns how many. */
  deleteOfUser(userId: string, which: SessionSelection, ending: EndingSessions): Promise<number>;
  /** Deletes the sessions that ended by `now`, one user's or everyone's; returns how many. */
  deleteExpired(now: string, userId?: string): Promise<number>;
}

// --- API keys -------------------------------------------------------------------------------------------

export interface ApiKeyRecord {
  id: string;
  name: string;
  ownerId: string | null;
  /** SHA-256 of the key; the key itself is never stored. */
  keyHash: string;
  /** The key's id at an external key manager (Unkey), or null for keys this database verifies. */
  externalId: string | null;
  displayStart: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export type InsertKeyResult = { inserted: true } | { inserted: false; reason: 'too-many-active-keys' };

export interface ApiKeyStore {
  /**
   * Adds a key. With `maxActive`, the owner's active keys (neither revoked nor expired at `createdAt`) are
   * counted and the insert refused at the bound, atomically: concurrent creations cannot overshoot it.
   */
  insert(record: ApiKeyRecord, options?: { maxActive?: number }): Promise<InsertKeyResult>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  findByExternalId(externalId: string): Promise<ApiKeyRecord | undefined>;
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Newest first. `ownerId` undefined lists every key (the CLI); null lists keys without an owner. */
  list(ownerId?: string | null): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked at `at` unless it already is; returns the record as it now stands. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  /** Records last use for several keys at once (written at most once a minute per key by the caller). */
  touch(uses: ReadonlyArray<{ id: string; at: string }>): Promise<void>;
}

// --- secrets --------------------------------------------------------------------------------------------

export interface SecretStore {
  /** A named server secret, created at random on first use and shared by every instance. */
  serverSecret(name: string): Promise<string>;
}

// --- the whole ------------------------------------------------------------------------------------------

export interface Storage {
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's use, where there is one (PostgreSQL); undefined for SQLite's two connections. */
  poolUse?(): PoolUse | undefined;

  readonly catalogue: CatalogueReads;
  readonly catalogueWrites: CatalogueWrites;
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly passwordResets: PasswordResetStore;
  readonly keys: ApiKeyStore;
  readonly secrets: SecretStore;
}

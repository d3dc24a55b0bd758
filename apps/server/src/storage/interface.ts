import type { Facets, ParsedReleaseInput, SortOrder } from '@releases/contract';

/** Filter values as the database keys them: lowercase, distinct. An empty list means "no filter". */
export interface ReleaseFilterKeys {
  vocaloid_banks: string[];
  genres: string[];
  languages: string[];
}

/** The position just after the last release of a page, in sort order. */
export interface ReleasePosition {
  releaseDate: string;
  id: string;
}

export interface ReleasePageRequest {
  filters: ReleaseFilterKeys;
  sort: SortOrder;
  limit: number;
  after: ReleasePosition | undefined;
}

export interface ReleasePage {
  /** Each release as its stored JSON text, ready to be written to a response without re-serializing. */
  releaseJson: string[];
  /** Where the next page starts, or undefined on the last page. */
  next: ReleasePosition | undefined;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  ownerId: string | null;
  keyHash: string;
  displayStart: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface UserRecord {
  id: string;
  email: string;
  createdAt: string;
}

export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: string;
  idleExpiresAt: string;
  absoluteExpiresAt: string;
}

/**
 * Everything the service keeps. One implementation per database (`sqlite.ts`, `postgres.ts`), sharing the
 * query layer (Kysely) and one set of migrations. Methods throw `StorageUnavailableError` when the
 * database does not answer.
 */
export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;

  listReleases(request: ReleasePageRequest): Promise<ReleasePage>;
  getReleaseJson(id: string): Promise<string | undefined>;
  facets(): Promise<Omit<Facets, 'generated_at'>>;
  countReleases(): Promise<number>;
  /** Bumped by every catalogue write, on every instance: caches compare it to stay correct. */
  catalogueVersion(): Promise<number>;
  /** Inserts or replaces releases by id in one transaction: all of them, or none. */
  upsertReleases(releases: ParsedReleaseInput[], now: Date): Promise<UpsertResult>;
  /** Bulk load for synthetic catalogues: like upsert, in batches, with progress. */
  loadReleases(releases: Iterable<ParsedReleaseInput>, now: Date, onProgress?: (done: number) => void): Promise<number>;

  insertApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(ownerId?: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; returns false when no unrevoked key has that id. */
  revokeApiKey(id: string, at: Date): Promise<boolean>;
  touchApiKey(id: string, at: Date): Promise<void>;

  findUserByEmail(email: string): Promise<UserRecord | undefined>;
  insertUser(user: UserRecord & { passwordHash: string | null }): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;

  /** A named server secret, created at random on first use and shared by every instance. */
  serverSecret(name: string): Promise<string>;
}

import type { ApiKeyRecord } from '../db/interface.js';

/** Why a key was refused. Each maps to one HTTP answer (`authenticate.ts`). */
export type KeyFailure =
  // 401
  | 'malformed'
  | 'bad-checksum'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'disabled'
  // 429
  | 'rate-limited'
  | 'usage-exceeded'
  // 403
  | 'forbidden';

export type KeyVerification =
  | { valid: true; keyId: string; ownerId: string | null }
  | { valid: false; failure: KeyFailure; expiredAt?: string; retryAfterSeconds?: number };

export interface CreateKeyInput {
  name: string;
  ownerId: string | null;
  /** How long the key works, from its creation (so `expires_at - created_at` is exactly this); null: forever. */
  lifetimeMs: number | null;
  /** Refuse the key when the owner already holds this many active keys (checked atomically). */
  maxActive?: number;
}

export type CreateKeyResult =
  { created: true; key: string; record: ApiKeyRecord } | { created: false; reason: 'too-many-active-keys' };

/**
 * Where API keys are verified (SPEC §4): `local` (this database) or `unkey` (the external key manager). Our
 * database keeps every key's metadata either way; the manager decides whether a key is good.
 *
 * Implementations fail closed: when they cannot tell (timeout, outage, nonsense answer) they throw
 * `KeyManagerUnavailableError` (a 503), never report a key as valid.
 */
export interface KeyManager {
  readonly kind: 'local' | 'unkey';
  verify(key: string): Promise<KeyVerification>;
  /** Returns the key in clear: the only moment it exists outside the caller's hands. */
  create(input: CreateKeyInput): Promise<CreateKeyResult>;
  /** Revokes a key everywhere it can be used; returns its record as it now stands, or undefined if unknown. */
  revoke(id: string): Promise<ApiKeyRecord | undefined>;
  /** Releases what the manager holds (timers, pending writes). */
  close?(): Promise<void>;
}

/** The key manager did not answer usably. Maps to 503 with `Retry-After`. */
export class KeyManagerUnavailableError extends Error {
  override readonly name = 'KeyManagerUnavailableError';
}

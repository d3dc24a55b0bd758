import type { ApiKeyRecord } from '../storage/interface.js';

export type KeyVerification =
  | { valid: true; keyId: string; ownerId: string | null }
  | { valid: false; reason: 'malformed' | 'bad-checksum' | 'unknown' | 'revoked' | 'expired'; expiredAt?: string };

export interface CreateKeyInput {
  name: string;
  ownerId: string | null;
  expiresAt: Date | null;
}

/** A key as listed: never the key itself, never its hash. */
export type KeySummary = Omit<ApiKeyRecord, 'keyHash'>;

/**
 * Where API keys live (SPEC §4). `local` keeps them in our database; an external key manager implements the
 * same interface. Implementations fail closed: an outage throws (→ 503), it never verifies a key.
 */
export interface KeyManager {
  verify(key: string): Promise<KeyVerification>;
  /** Returns the key in clear: the only moment it exists outside the caller's hands. */
  create(input: CreateKeyInput): Promise<{ key: string; summary: KeySummary }>;
  list(ownerId?: string): Promise<KeySummary[]>;
  revoke(id: string): Promise<boolean>;
}

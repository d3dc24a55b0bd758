import { checkApiKeyFormat } from '@releases/contract';
import type { Clock } from '../kernel/clock.js';
import type { ApiKeyRecord, ApiKeyStore } from '../db/interface.js';
import { hashSecret, newId } from '../kernel/crypto.js';
import { displayStart, generateApiKey } from './api-key-format.js';
import type { CreateKeyInput, CreateKeyResult, KeyManager, KeyVerification } from './key-manager.js';
import type { KeyUsageRecorder } from './key-usage.js';
import { VerificationCache } from './verification-cache.js';

export interface LocalKeyManagerOptions {
  keys: ApiKeyStore;
  usage: KeyUsageRecorder;
  clock: Clock;
  /** How long a lookup is reused. Bounds how late a revocation is seen by another instance (SPEC: ≤ 5 s). */
  cacheTtlMs: number;
}

/** Keys verified against this database: format and checksum offline, then one lookup by hash (cached). */
export class LocalKeyManager implements KeyManager {
  readonly kind = 'local';
  private readonly cache: VerificationCache;

  constructor(private readonly options: LocalKeyManagerOptions) {
    this.cache = new VerificationCache({ ttlMs: options.cacheTtlMs, clock: options.clock });
  }

  async verify(key: string): Promise<KeyVerification> {
    const shape = checkApiKeyFormat(key);
    if (shape) return { valid: false, failure: shape };

    const now = this.options.clock.now();
    const keyHash = hashSecret(key);
    let record = this.cache.recall(keyHash);
    if (record === undefined) {
      const ticket = this.cache.ticket();
      record = (await this.options.keys.findByHash(keyHash)) ?? null;
      // Unknown keys are remembered too, so repeating one costs no lookup.
      this.cache.keep(keyHash, record, ticket);
    }
    if (!record || record.externalId !== null) return { valid: false, failure: 'unknown' };
    if (record.revokedAt) return { valid: false, failure: 'revoked' };
    if (record.expiresAt && Date.parse(record.expiresAt) <= now) {
      return { valid: false, failure: 'expired', expiredAt: record.expiresAt };
    }
    this.options.usage.note(record.id, now, record.lastUsedAt);
    return { valid: true, keyId: record.id, ownerId: record.ownerId };
  }

  async create(input: CreateKeyInput): Promise<CreateKeyResult> {
    const key = generateApiKey();
    const now = this.options.clock.now();
    const record: ApiKeyRecord = {
      id: newId('key'),
      name: input.name,
      ownerId: input.ownerId,
      keyHash: hashSecret(key),
      externalId: null,
      displayStart: displayStart(key),
      createdAt: new Date(now).toISOString(),
      expiresAt: input.lifetimeMs === null ? null : new Date(now + input.lifetimeMs).toISOString(),
      revokedAt: null,
      lastUsedAt: null,
    };
    const result = await this.options.keys.insert(
      record,
      input.maxActive === undefined ? {} : { maxActive: input.maxActive },
    );
    return result.inserted ? { created: true, key, record } : { created: false, reason: result.reason };
  }

  async revoke(id: string): Promise<ApiKeyRecord | undefined> {
    const record = await this.options.keys.revoke(id, new Date(this.options.clock.now()).toISOString());
    // This instance sees its own revocation at once; others within the cache TTL.
    this.cache.forget(id);
    return record;
  }

  close(): Promise<void> {
    return this.options.usage.close();
  }
}

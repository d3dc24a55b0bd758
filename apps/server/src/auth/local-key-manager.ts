import { checkApiKeyFormat } from '@releases/contract';
import type { Clock } from '../clock.js';
import type { ApiKeyRecord, Storage } from '../storage/interface.js';
import { displayStart, generateApiKey, hashSecret, newId } from './api-keys.js';
import type { CreateKeyInput, KeyManager, KeySummary, KeyVerification } from './key-manager.js';

/** `last_used_at` is written at most this often per key (SPEC §4). */
const lastUsedWriteIntervalMs = 60_000;
const maxCachedKeys = 10_000;

function summarize(record: ApiKeyRecord): KeySummary {
  const { keyHash: _hash, ...summary } = record;
  return summary;
}

export interface LocalKeyManagerOptions {
  storage: Storage;
  clock: Clock;
  /** How long a lookup is reused. Bounds how late a revocation is seen by another instance (SPEC: ≤ 5 s). */
  cacheTtlMs: number;
  onBackgroundError?: (error: unknown) => void;
}

export class LocalKeyManager implements KeyManager {
  private readonly cache = new Map<string, { record: ApiKeyRecord | undefined; until: number }>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(private readonly options: LocalKeyManagerOptions) {}

  async verify(key: string): Promise<KeyVerification> {
    const shape = checkApiKeyFormat(key);
    if (shape) return { valid: false, reason: shape };

    const now = this.options.clock.now();
    const keyHash = hashSecret(key);
    let cached = this.cache.get(keyHash);
    if (!cached || cached.until <= now) {
      const record = await this.options.storage.findApiKeyByHash(keyHash);
      cached = { record, until: now + this.options.cacheTtlMs };
      if (this.cache.size >= maxCachedKeys) this.cache.clear();
      this.cache.set(keyHash, cached);
    }
    const record = cached.record;
    if (!record) return { valid: false, reason: 'unknown' };
    if (record.revokedAt) return { valid: false, reason: 'revoked' };
    if (record.expiresAt && Date.parse(record.expiresAt) <= now) {
      return { valid: false, reason: 'expired', expiredAt: record.expiresAt };
    }
    this.noteUse(record, now);
    return { valid: true, keyId: record.id, ownerId: record.ownerId };
  }

  /** Records use without slowing the request: at most one write per key per minute, failures only logged. */
  private noteUse(record: ApiKeyRecord, now: number): void {
    const lastWritten = Math.max(
      this.lastUsedWritten.get(record.id) ?? 0,
      record.lastUsedAt ? Date.parse(record.lastUsedAt) : 0,
    );
    if (now - lastWritten < lastUsedWriteIntervalMs) return;
    if (this.lastUsedWritten.size >= maxCachedKeys) this.lastUsedWritten.clear();
    this.lastUsedWritten.set(record.id, now);
    this.options.storage.touchApiKey(record.id, new Date(now)).catch((error: unknown) => {
      this.options.onBackgroundError?.(error);
    });
  }

  async create(input: CreateKeyInput): Promise<{ key: string; summary: KeySummary }> {
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      id: newId('key'),
      name: input.name,
      ownerId: input.ownerId,
      keyHash: hashSecret(key),
      displayStart: displayStart(key),
      createdAt: new Date(this.options.clock.now()).toISOString(),
      expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null,
      revokedAt: null,
      lastUsedAt: null,
    };
    await this.options.storage.insertApiKey(record);
    return { key, summary: summarize(record) };
  }

  async list(ownerId?: string): Promise<KeySummary[]> {
    return (await this.options.storage.listApiKeys(ownerId)).map(summarize);
  }

  async revoke(id: string): Promise<boolean> {
    const revoked = await this.options.storage.revokeApiKey(id, new Date(this.options.clock.now()));
    // This instance sees its own revocation at once; others within the cache TTL.
    if (revoked) for (const [hash, entry] of this.cache) if (entry.record?.id === id) this.cache.delete(hash);
    return revoked;
  }
}

import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../db/interface.js';
import { VerificationCache } from './verification-cache.js';

function record(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key_1',
    name: 'test',
    ownerId: null,
    keyHash: 'hash',
    externalId: null,
    displayStart: 'rls_abcd1234',
    createdAt: new Date(0).toISOString(),
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

describe('VerificationCache', () => {
  it('remembers a verification for the TTL of its clock, unknown keys included', () => {
    let now = 10_000;
    const cache = new VerificationCache({ ttlMs: 5_000, clock: { now: () => now } });
    cache.keep('a', record(), cache.ticket());
    cache.keep('b', null, cache.ticket());
    expect(cache.recall('a')?.id).toBe('key_1');
    expect(cache.recall('b')).toBeNull();
    expect(cache.recall('c')).toBeUndefined();
    now += 5_001;
    expect(cache.recall('a')).toBeUndefined();
  });

  it('never reuses a pass past the key’s own expiry', () => {
    let now = 10_000;
    const cache = new VerificationCache({ ttlMs: 5_000, clock: { now: () => now } });
    cache.keep('a', record({ expiresAt: new Date(now + 1_000).toISOString() }), cache.ticket());
    now += 999;
    expect(cache.recall('a')).toBeDefined();
    now += 2;
    expect(cache.recall('a')).toBeUndefined();
  });

  it('forgets a revoked key at once, and keeps nothing a verification read before the revocation', () => {
    const cache = new VerificationCache({ ttlMs: 5_000, clock: { now: () => 0 } });
    cache.keep('a', record(), cache.ticket());
    const raced = cache.ticket();
    cache.forget('key_1');
    expect(cache.recall('a')).toBeUndefined();
    cache.keep('a', record(), raced);
    expect(cache.recall('a')).toBeUndefined();
    cache.keep('a', record({ revokedAt: new Date(0).toISOString() }), cache.ticket());
    expect(cache.recall('a')?.revokedAt).not.toBeNull();
  });

  it('remembers nothing when KEY_CACHE_TTL is 0', () => {
    const cache = new VerificationCache({ ttlMs: 0, clock: { now: () => 0 } });
    cache.keep('a', record(), cache.ticket());
    expect(cache.recall('a')).toBeUndefined();
  });
});

import type { ApiKey } from '@releases/contract';
import type { ApiKeyRecord } from '../db/interface.js';

/** A key's record as the API and the CLI show it (SPEC §3.5): never its hash, never the key. */
export function apiKeyJson(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    name: record.name,
    start: record.displayStart,
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
  };
}

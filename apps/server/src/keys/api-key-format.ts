import { apiKeyChecksum, apiKeyDisplayStartLength, apiKeyPrefix, apiKeyRandomLength } from '@releases/contract';
import { randomBase62 } from '../kernel/crypto.js';

/** A new API key in the documented format (SPEC §4): 190 bits of randomness plus a checksum. */
export function generateApiKey(): string {
  const body = apiKeyPrefix + randomBase62(apiKeyRandomLength);
  return body + apiKeyChecksum(body);
}

/** What a key's owner is shown of it later: its first characters (`rls_AbCd1234`). */
export function displayStart(key: string): string {
  return key.slice(0, apiKeyDisplayStartLength);
}

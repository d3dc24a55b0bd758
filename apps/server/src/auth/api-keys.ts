import { createHash, randomInt } from 'node:crypto';
import {
  apiKeyChecksum,
  apiKeyDisplayStartLength,
  apiKeyPrefix,
  apiKeyRandomLength,
  base62Alphabet,
} from '@releases/contract';

/** Uniform random base62 (no modulo bias: `randomInt` draws each character evenly). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += base62Alphabet[randomInt(62)];
  return out;
}

/** A new API key in the documented format: 190 bits of randomness plus a checksum. */
export function generateApiKey(): string {
  const body = apiKeyPrefix + randomBase62(apiKeyRandomLength);
  return body + apiKeyChecksum(body);
}

/**
 * What is stored instead of the key. Keys carry 190 bits of randomness, so a fast hash is enough: there is
 * nothing to brute-force, and verification stays one index lookup.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function displayStart(key: string): string {
  return key.slice(0, apiKeyDisplayStartLength);
}

export function newId(prefix: 'key' | 'usr' | 'ses'): string {
  return `${prefix}_${randomBase62(20)}`;
}

import { createHash, randomInt } from 'node:crypto';
import { base62Alphabet } from '@releases/contract';

/** Uniform random base62 (no modulo bias: `randomInt` draws each character evenly). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += base62Alphabet[randomInt(62)];
  return out;
}

/**
 * What is stored instead of a secret (an API key, a session token). Both carry 190 to 256 bits of randomness,
 * so a fast hash is enough: there is nothing to brute-force, and a lookup stays one index probe.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A resource id: its prefix, then 20 random base62 characters (119 bits), not derived from anything. */
export function newId(prefix: 'key' | 'usr' | 'ses'): string {
  return `${prefix}_${randomBase62(20)}`;
}

/**
 * API key format (SPEC §4): `rls_` + 32 base62 characters of randomness + 6 base62 characters of CRC32 over
 * everything before them; 42 characters in all. The checksum lets the server (and the SDK, and secret
 * scanners) reject a mistyped or made-up key without a database lookup.
 */
export const apiKeyPrefix = 'rls_';
export const apiKeyRandomLength = 32;
export const apiKeyChecksumLength = 6;
export const apiKeyLength = apiKeyPrefix.length + apiKeyRandomLength + apiKeyChecksumLength;
/** How much of a key is kept in clear to help its owner recognise it: `rls_AbCd1234`. */
export const apiKeyDisplayStartLength = apiKeyPrefix.length + 8;

export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const apiKeyShape = new RegExp(`^${apiKeyPrefix}[0-9A-Za-z]{${apiKeyRandomLength + apiKeyChecksumLength}}$`);

let crcTable: Uint32Array | undefined;

function crc32(text: string): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  // Keys are ASCII by construction (checked before this is called), so char codes are bytes.
  for (let i = 0; i < text.length; i++) crc = crcTable[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The 6-character base62 checksum of a key body (`rls_` + random part). */
export function apiKeyChecksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < apiKeyChecksumLength; i++) {
    out = base62Alphabet[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export type ApiKeyShapeProblem = 'malformed' | 'bad-checksum';

/** Checks a key's shape and checksum offline. Returns undefined when well formed. */
export function checkApiKeyFormat(key: string): ApiKeyShapeProblem | undefined {
  if (key.length !== apiKeyLength || !apiKeyShape.test(key)) return 'malformed';
  const body = key.slice(0, apiKeyPrefix.length + apiKeyRandomLength);
  return apiKeyChecksum(body) === key.slice(body.length) ? undefined : 'bad-checksum';
}

export function isWellFormedApiKey(key: string): boolean {
  return checkApiKeyFormat(key) === undefined;
}

/** Bitcoin's base58: no `0`, `O`, `I` or `l`. Unkey generates key bodies in it. */
export const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export const unkeyKeyMinLength = 16;
export const unkeyKeyMaxLength = 64;
const unkeyKeyShape = new RegExp(`^${apiKeyPrefix}[${base58Alphabet}]{${unkeyKeyMinLength},${unkeyKeyMaxLength}}$`);

/**
 * Keys issued by Unkey (`KEY_MANAGER=unkey`): our prefix, then 16 to 64 base58 characters. There is no
 * checksum to check offline; Unkey is the only judge of anything beyond the shape.
 */
export function isWellFormedUnkeyKey(key: string): boolean {
  return unkeyKeyShape.test(key);
}

/**
 * Why a credential cannot be sent as an HTTP header value, or undefined when it can. The SDK checks only
 * this (it cannot know which key manager issued a key): empty values, control characters and anything
 * outside printable ASCII would be refused by `fetch` or mangled on the way.
 */
export function headerValueProblem(value: string): string | undefined {
  if (value.trim() === '') return 'is empty';
  if (value !== value.trim()) return 'has leading or trailing whitespace';
  if (/[^\x20-\x7e]/.test(value)) return 'contains a control character or a non-ASCII character';
  return undefined;
}

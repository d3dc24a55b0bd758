import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiKeyChecksum,
  apiKeyLength,
  checkApiKeyFormat,
  commaListProblem,
  isLanguageTag,
  limits,
  problemKindFromType,
  problemKinds,
  problemTypeUri,
  splitCommaList,
} from './wire.js';

describe('API key format', () => {
  const body = fc.stringMatching(/^[0-9A-Za-z]{32}$/).map((random) => `rls_${random}`);

  it('accepts a key with its checksum and rejects any single-character change', () => {
    fc.assert(
      fc.property(
        body,
        fc.nat(),
        fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
        (b, at, c) => {
          const key = b + apiKeyChecksum(b);
          expect(key).toHaveLength(apiKeyLength);
          expect(checkApiKeyFormat(key)).toBeUndefined();
          const index = 4 + (at % (apiKeyLength - 4));
          fc.pre(key[index] !== c);
          expect(checkApiKeyFormat(key.slice(0, index) + c + key.slice(index + 1))).toBe('bad-checksum');
        },
      ),
    );
  });

  it('calls anything of the wrong shape malformed', () => {
    for (const key of [
      '',
      'rls_',
      `rls_${'a'.repeat(37)}`,
      `rls_${'a'.repeat(39)}`,
      `RLS_${'a'.repeat(38)}`,
      `rls_${'a'.repeat(37)}-`,
    ]) {
      expect(checkApiKeyFormat(key), key).toBe('malformed');
    }
  });
});

describe('comma-separated filters', () => {
  it('trims, drops empty items, unions repeats and keeps the first spelling', () => {
    expect(splitCommaList(' rock , ,Jazz,,ROCK,')).toEqual(['rock', 'Jazz']);
    expect(splitCommaList(['a,b', 'B', 'c'])).toEqual(['a', 'b', 'c']);
    expect(splitCommaList(undefined)).toEqual([]);
  });

  it('never yields an empty, untrimmed or comma-containing value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string())), (raw) => {
        for (const value of splitCommaList(raw)) {
          expect(value).not.toBe('');
          expect(value).toBe(value.trim());
          expect(value).not.toContain(',');
        }
      }),
    );
  });

  it('bounds the number and length of values', () => {
    expect(commaListProblem(Array.from({ length: limits.maxFilterValues }, (_, i) => `v${i}`))).toBeUndefined();
    expect(commaListProblem(Array.from({ length: limits.maxFilterValues + 1 }, (_, i) => `v${i}`))).toMatch(
      /at most 20 values/,
    );
    expect(commaListProblem(['x'.repeat(limits.maxFilterValueLength + 1)])).toMatch(/at most 64 characters/);
  });

  it('recognises BCP 47 language tags', () => {
    for (const tag of ['ja', 'en', 'zh-Hans', 'pt-BR', 'ZH-hant', 'es-419']) expect(isLanguageTag(tag), tag).toBe(true);
    for (const tag of ['', 'english!', 'a', 'ja_JP', 'x'.repeat(65), '12']) expect(isLanguageTag(tag), tag).toBe(false);
  });
});

describe('problem kinds', () => {
  it('map to type URIs and back, on any host', () => {
    for (const kind of Object.keys(problemKinds) as Array<keyof typeof problemKinds>) {
      expect(problemKindFromType(problemTypeUri('https://api.example.com/', kind))).toBe(kind);
    }
    expect(problemKindFromType('https://x/problems/nope')).toBeUndefined();
    expect(problemKindFromType(42)).toBeUndefined();
  });

  it('have unique titles and statuses that match the HTTP class', () => {
    const titles = Object.values(problemKinds).map((p) => p.title);
    expect(new Set(titles).size).toBe(titles.length);
    for (const { status } of Object.values(problemKinds)) expect(status >= 400 && status < 600).toBe(true);
  });
});

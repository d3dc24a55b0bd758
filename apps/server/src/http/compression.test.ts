import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codingFor, completed, compressPrefix, type Coding } from './compression.js';

const decompress = (coding: Coding, bytes: Buffer) =>
  (coding === 'br' ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes)).toString();

describe('a compressed prefix completed with an uncompressed suffix', () => {
  it.each(['br', 'gzip'] as const)('decompresses to prefix + suffix (%s), whatever their contents', (coding) => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 3_000 }),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        (prefix, suffix) => {
          const whole = Buffer.concat(completed(compressPrefix(coding, prefix), suffix));
          expect(decompress(coding, whole)).toBe(prefix + suffix);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['br', 'gzip'] as const)('gives one prefix many endings (%s): each response its own time', (coding) => {
    const prefix = compressPrefix(
      coding,
      `{"data":{"releases":[${'{"title":"Melt"},'.repeat(500)}{}],"generated_at":"`,
    );
    for (const time of ['2026-01-01T00:00:00.000Z', '2027-12-31T23:59:59.999Z']) {
      const body = decompress(coding, Buffer.concat(completed(prefix, `${time}"}}`)));
      expect((JSON.parse(body) as { data: { generated_at: string } }).data.generated_at).toBe(time);
    }
  });
});

describe('codingFor', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['identity', undefined],
    ['deflate', undefined],
    ['*', 'br'],
    ['br;q=0, gzip;q=0', undefined],
  ] as const)('%s -> %s', (header, coding) => {
    expect(codingFor(header)).toBe(coding);
  });
});

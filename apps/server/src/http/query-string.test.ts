import { parse } from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQueryString } from './query-string.js';

const percentEncoded = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const loneSurrogate = /\p{Cs}/u;

describe('the query parser', () => {
  it('reads what Express’s simple parser reads, for any well-formed query', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()))), (values) => {
        const query = Object.entries(values)
          .flatMap(([key, value]) =>
            (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`),
          )
          .join('&');
        expect(parseQueryString(query)).toEqual(parse(query));
      }),
    );
    expect(parseQueryString('a=b+c&d=%zz&e=x%2By&e=2')).toEqual(parse('a=b+c&d=%zz&e=x%2By&e=2'));
  });

  it('turns bytes that are not UTF-8 into lone surrogates instead of U+FFFD', () => {
    expect(parseQueryString('genres=a%ED%A0%80b').genres).toBe('a\udced\udca0\udc80b');
    expect(parseQueryString('genres=%FF').genres).toBe('\udcff');
    // An overlong NUL, and a malformed escape beside a bad byte, which stays as written.
    expect(parseQueryString('genres=%C0%80').genres).toBe('\udcc0\udc80');
    expect(parseQueryString('genres=%zz%FF').genres).toBe('%zz\udcff');
    expect(parseQueryString('genres=rock%F0%9F%8E%B8%FF').genres).toBe('rock🎸\udcff');
  });

  it('decodes any bytes as UTF-8 where they are UTF-8, and marks exactly the rest', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const decoded = String(parseQueryString(`v=${percentEncoded(bytes)}`).v ?? '');
        let wellFormed: string | undefined;
        try {
          wellFormed = strict.decode(bytes);
        } catch {
          wellFormed = undefined;
        }
        if (wellFormed === undefined) {
          expect(loneSurrogate.test(decoded)).toBe(true);
        } else {
          expect(decoded).toBe(wellFormed);
        }
      }),
    );
  });
});

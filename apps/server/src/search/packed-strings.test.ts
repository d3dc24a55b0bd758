import { describe, expect, it } from 'vitest';
import { PackedStrings } from './packed-strings.js';

describe('PackedStrings', () => {
  // Enough to make the buffer grow more than once; with empty strings, CJK and characters beyond the BMP.
  const strings = [
    '',
    ' melt',
    ' 初音ミクの消失',
    '🎤 mic',
    ...Array.from({ length: 30_000 }, (_, i) => `rel_${i}`),
    '',
  ];
  const builder = PackedStrings.builder();
  for (const text of strings) builder.add(text);
  const packed = builder.done();
  const utf8 = (text: string) => Buffer.from(text);

  it('gives back each string as it was added', () => {
    expect(packed.length).toBe(strings.length);
    expect(strings.every((text, i) => packed.get(i) === text)).toBe(true);
  });

  it('compares whole strings and beginnings in bytes', () => {
    expect(packed.equals(2, utf8(' 初音ミクの消失'))).toBe(true);
    expect(packed.equals(2, utf8(' 初音'))).toBe(false);
    expect(packed.startsWith(2, utf8(' 初音'))).toBe(true);
    expect(packed.startsWith(2, utf8(' 初音ミクの消失 '))).toBe(false);
    expect(packed.startsWith(1, utf8(' melted'))).toBe(false);
    expect(packed.equals(0, utf8(''))).toBe(true);
    expect(packed.startsWith(0, utf8(' '))).toBe(false);
    expect(packed.equals(4 + 12_345, utf8('rel_12345'))).toBe(true);
  });
});

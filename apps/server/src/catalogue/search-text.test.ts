import { describe, expect, it } from 'vitest';
import { indexedTerm, parseSearch, searchableText, searchTokens, startKeys, tokenKeys } from './search-text.js';

describe('search text', () => {
  it.each([
    ['Melt', ' melt'],
    ['ｍｅｌｔ', ' melt'],
    ['Pokémon', ' pokemon'],
    ['Straße', ' strasse'],
    ['ΣΟΦΟΣ', ' σοφοσ'],
    ['Re:Union (feat. IA)', ' re union feat ia'],
    ['ミクsong', ' ミク song'],
    ['千本桜 -初音ミク-', ' 千本桜 初音ミク'],
    ['ハッピー・シンセ', ' ハッピー シンセ'],
    ['ｶﾞｰﾙ', ' ガール'],
    ['사랑의 노래', ' 사랑의 노래'],
    ['!!!', ''],
  ])('%s is stored as %j', (text, stored) => {
    expect(searchableText(text)).toBe(stored);
  });

  it('keeps the voiced marks of kana and the syllables of Hangul whole', () => {
    expect(searchTokens('が')).toEqual([{ text: 'が', cjk: true }]);
    expect(searchTokens('한')).toEqual([{ text: '한', cjk: true }]);
  });

  it('keys the beginnings of Latin words, and every character and pair of a CJK run', () => {
    expect([...tokenKeys(searchTokens('Hoshiboshi to'))]).toEqual([
      'h',
      'ho',
      'hos',
      'hosh',
      'hoshi',
      'hoshib',
      't',
      'to',
    ]);
    expect([...tokenKeys(searchTokens('初音ミク'))]).toEqual(['初', '初音', '音', '音ミ', 'ミ', 'ミク', 'ク']);
    expect([...startKeys(' re union')]).toEqual(['r', 're', 're ', 're u', 're un', 're uni']);
  });

  it('finds a term by its key, and says when only the stored text can decide', () => {
    expect(indexedTerm({ text: 'hoshi', cjk: false })).toEqual({ keys: ['hoshi'], exact: true, pattern: '% hoshi%' });
    expect(indexedTerm({ text: 'hoshiboshi', cjk: false })).toMatchObject({ keys: ['hoshib'], exact: false });
    expect(indexedTerm({ text: '初音', cjk: true })).toEqual({ keys: ['初音'], exact: true, pattern: '%初音%' });
    expect(indexedTerm({ text: 'ハッピー', cjk: true })).toEqual({
      keys: ['ハッ', 'ッピ', 'ピー'],
      exact: false,
      pattern: '%ハッピー%',
    });
  });

  it('parses a search into distinct tokens, and keeps the whole of it for the tiers', () => {
    expect(parseSearch('Melt  melt World')).toEqual({
      tokens: [
        { text: 'melt', cjk: false },
        { text: 'world', cjk: false },
      ],
      text: ' melt melt world',
    });
    expect(parseSearch('!!!')).toEqual({ tokens: [], text: '' });
  });
});

import { describe, expect, it } from 'vitest';
import { parseSearch, searchableText } from '../catalogue/search-text.js';
import { SearchPostings } from './search-postings.js';

const releases = [
  { title: 'Melt', artist: 'ryo (supercell)' },
  { title: 'World is Mine', artist: 'ryo' },
  { title: 'メルト', artist: 'ryo' },
  { title: '初音ミクの消失', artist: 'cosMo@暴走P' },
  { title: 'Café Ünïcode', artist: 'Mélodie' },
  { title: 'ミクsong', artist: 'Supercell' },
];

function build(): SearchPostings {
  const builder = SearchPostings.builder();
  // In any order, as a database might hand them over.
  for (const ordinal of [3, 0, 5, 1, 4, 2]) {
    const release = releases[ordinal]!;
    builder.add(ordinal, searchableText(release.title), searchableText(release.artist));
  }
  return builder.done(releases.length);
}

const index = build();
const matching = (q: string) =>
  [...index.matching(parseSearch(q))].flatMap((member, ordinal) => (member ? [ordinal] : []));

/** The plain definition (SPEC §3.6), as the database's `like` patterns say it. */
const expected = (q: string) =>
  releases.flatMap((release, ordinal) => {
    const fields = [searchableText(release.title), searchableText(release.artist)];
    const every = parseSearch(q).tokens.every((term) =>
      fields.some((field) => field.includes(term.cjk ? term.text : ` ${term.text}`)),
    );
    return parseSearch(q).tokens.length > 0 && every ? [ordinal] : [];
  });

describe('SearchPostings', () => {
  it.each([
    ['a Latin word beginning', 'mel', [0, 4]],
    ['a whole word, in title or artist', 'ryo', [0, 1, 2]],
    ['a word inside another is no match', 'cell', []],
    ['two terms, each in either field', 'melt supercell', [0]],
    ['diacritics and case', 'CAFE unicode', [4]],
    ['one CJK character, anywhere', 'ミ', [3, 5]],
    ['a CJK run inside a longer one', '音ミク', [3]],
    ['CJK characters all present but not together', '初ク', []],
    ['a CJK term and a Latin one', 'ミク song', [5]],
    ['a term nothing holds', 'zzz', []],
    ['no terms at all', '!!!', []],
  ])('%s: %s', (_name, q, ordinals) => {
    expect(matching(q)).toEqual(ordinals);
    expect(matching(q)).toEqual(expected(q));
  });
});

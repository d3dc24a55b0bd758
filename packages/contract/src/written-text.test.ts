import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CreateApiKeySchema,
  CredentialsSchema,
  EmailSchema,
  LoginSchema,
  ReleaseInputSchema,
  ReleaseListQuerySchema,
  writtenText,
} from './index.js';
import { z } from 'zod';
import { unicodeTextProblem, writtenTextProblem } from './wire.js';

/** One character of each class the rule refuses, and why it is refused. */
const refused: Array<[string, string, RegExp]> = [
  ['NUL', '\u0000', /^must not contain NUL characters: U\+0000 at character 2$/],
  ['ESC (C0)', '\u001b', /^must not contain control characters: U\+001B at character 2$/],
  ['tab (C0)', '\t', /^must not contain control characters: U\+0009 at character 2$/],
  ['newline (C0)', '\n', /^must not contain control characters: U\+000A at character 2$/],
  ['DEL', '\u007f', /^must not contain control characters: U\+007F at character 2$/],
  ['NEL (C1)', '\u0085', /^must not contain control characters: U\+0085 at character 2$/],
  ['CSI (C1)', '\u009b', /^must not contain control characters: U\+009B at character 2$/],
  ['lone high surrogate', '\ud800', /^must be Unicode text \(it holds a lone surrogate\): U\+D800 at character 2$/],
  ['lone low surrogate', '\udc80', /^must be Unicode text \(it holds a lone surrogate\): U\+DC80 at character 2$/],
  ['RLO', '\u202e', /^must not contain bidirectional override or isolate characters: U\+202E at character 2$/],
  ['LRE', '\u202a', /bidirectional override or isolate characters: U\+202A/],
  ['LRI', '\u2066', /bidirectional override or isolate characters: U\+2066/],
  ['RLI', '\u2067', /bidirectional override or isolate characters: U\+2067/],
  ['FSI', '\u2068', /bidirectional override or isolate characters: U\+2068/],
  ['PDI', '\u2069', /bidirectional override or isolate characters: U\+2069/],
];

describe('the rule for text a person writes', () => {
  it.each(refused)('refuses %s, saying why and where', (_name, char, why) => {
    expect(writtenTextProblem(`a${char}b`)).toMatch(why);
  });

  it('accepts the text people write: any script, emoji, combining marks, the right-to-left marks', () => {
    for (const text of [
      'Hatsune Miku',
      '初音ミク',
      '하츠네 미쿠',
      'Pokémon',
      'Poke\u0301mon',
      'ロック 🎸',
      'עברית\u200f',
      'عربي\u061c',
      'a\u200eb',
      'x'.repeat(10_000),
    ]) {
      expect(writtenTextProblem(text), text).toBeUndefined();
    }
  });

  it('counts the position in characters, so a surrogate pair before it counts once', () => {
    expect(writtenTextProblem('🎸🎸\u001b')).toMatch(/at character 3$/);
  });

  it('agrees with a character-by-character reading on any string', () => {
    const refusedCodePoint = (code: number) =>
      code <= 0x1f ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      (code >= 0xd800 && code <= 0xdfff);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // `for...of` walks code points; a lone surrogate comes out as itself.
        const expected = [...text].some((char) => refusedCodePoint(char.codePointAt(0)!));
        expect(writtenTextProblem(text) !== undefined).toBe(expected);
      }),
    );
  });

  it('lets passwords hold anything but a lone surrogate', () => {
    expect(unicodeTextProblem('tab\there\u0000\u202e')).toBeUndefined();
    expect(unicodeTextProblem('x\ud800')).toMatch(/lone surrogate/);
  });
});

describe('the fields that follow it', () => {
  const issues = (result: z.SafeParseReturnType<unknown, unknown>) =>
    result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));

  it('an email, on signing up and in', () => {
    for (const schema of [CredentialsSchema, LoginSchema]) {
      expect(
        issues(schema.safeParse({ email: 'a\u202eb@example.com', password: 'a long enough password' })),
      ).toContainEqual({
        path: 'email',
        message: expect.stringMatching(/bidirectional/) as unknown,
      });
    }
    expect(EmailSchema.safeParse(' Mia@Example.com ')).toEqual({ success: true, data: 'mia@example.com' });
  });

  it('a key name, after trimming', () => {
    expect(issues(CreateApiKeySchema.safeParse({ name: 'ci\u001b[2K' }))).toEqual([
      { path: 'name', message: 'must not contain control characters: U+001B at character 3' },
    ]);
    expect(CreateApiKeySchema.parse({ name: ' ci \t' })).toEqual({ name: 'ci' });
  });

  it('not a password, which may hold control characters but must be Unicode', () => {
    const credentials = (password: string) => CredentialsSchema.safeParse({ email: 'a@example.com', password });
    expect(credentials('tab\tand\u001b escape').success).toBe(true);
    expect(issues(credentials('long enough \ud800'))).toContainEqual({
      path: 'password',
      message: expect.stringMatching(/lone surrogate/) as unknown,
    });
  });

  it('every filter, naming the value', () => {
    for (const name of ['vocaloid_banks', 'genres', 'languages'] as const) {
      expect(issues(ReleaseListQuerySchema.safeParse({ [name]: 'ja,e\u0000n' }))).toEqual([
        { path: name, message: 'value 2 must not contain NUL characters: U+0000 at character 2' },
      ]);
    }
  });

  it('every text field of an imported release', () => {
    const release = {
      id: 'rel_x',
      title: 'Title',
      artist: 'Artist',
      release_date: '2020-01-01',
      release_type: 'single',
      vocaloid_banks: ['Hatsune Miku'],
      genres: ['rock'],
      languages: ['ja'],
      track_count: 1,
      cover_url: null,
      links: [{ site: 'youtube', url: 'https://example.com/watch' }],
    };
    expect(ReleaseInputSchema.safeParse(release).success).toBe(true);
    const bad = {
      ...release,
      title: 'T\u202eitle',
      artist: 'A\u0085',
      vocaloid_banks: ['Miku\u0000'],
      genres: ['ro\u001bck'],
      links: [{ site: 'you\ud800tube', url: 'https://example.com/\u2066' }],
      cover_url: 'https://example.com/\u007f.png',
    };
    expect(
      issues(ReleaseInputSchema.safeParse(bad))
        .map((issue) => issue.path)
        .sort(),
    ).toEqual(['artist', 'cover_url', 'genres.0', 'links.0.site', 'links.0.url', 'title', 'vocaloid_banks.0']);
  });

  it('and any other field that adopts it, such as `q` when it comes', () => {
    const q = writtenText(z.string().trim().max(100));
    expect(q.safeParse(' melt ').success).toBe(true);
    expect(issues(q.safeParse('melt\u009b'))).toEqual([
      { path: '', message: 'must not contain control characters: U+009B at character 5' },
    ]);
  });
});

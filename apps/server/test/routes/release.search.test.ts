import type { ParsedReleaseInput } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestServer, testDatabases, type TestServer } from '../support/harness.js';

/** A release with what search reads; the rest plain. */
function release(
  id: string,
  title: string,
  artist: string,
  date: string,
  more: Partial<ParsedReleaseInput> = {},
): ParsedReleaseInput {
  return {
    id: `rel_${id}`,
    title,
    artist,
    release_date: date,
    release_type: 'single',
    vocaloid_banks: ['Hatsune Miku'],
    genres: ['rock'],
    languages: ['ja'],
    track_count: 1,
    cover_url: null,
    links: [],
    ...more,
  };
}

const catalogue = [
  release('melt', 'Melt', 'ryo', '2007-12-07', { genres: ['j-pop'] }),
  release('meltdown', 'Meltdown', 'iroha', '2008-09-11', { vocaloid_banks: ['Kagamine Rin'] }),
  release('melted', 'Melted Heart', 'Someone', '2012-01-01', { vocaloid_banks: ['GUMI'], languages: ['en'] }),
  release('snowmelt', 'Snow Melt', 'Other', '2015-01-01', { genres: ['ballad'] }),
  release('byryo', 'Sky Song', 'Melt Lover', '2020-01-01'),
  release('pokemon', 'Pokémon Medley', 'Game Circle', '2016-05-05', { vocaloid_banks: ['GUMI'] }),
  release('hoshi', 'Hoshiboshi to Yarou', 'Star-P', '2010-03-03'),
  release('strasse', 'Straße', 'Berlin-P', '2011-04-04'),
  release('long', 'Telecaster Boy', 'Guitar-P', '2013-02-02'),
  release('mikuboso', '初音ミクの暴走', 'cosMo@暴走P', '2008-01-10'),
  release('happy', 'ハッピーシンセサイザ', 'EasyPop', '2010-09-15', { vocaloid_banks: ['Megurine Luka', 'GUMI'] }),
  release('notq', 'ハッピ・ピーナツ', 'Decoy', '2014-04-04'),
  release('sakura', '千本桜', 'Kurousa-P', '2011-09-17'),
  release('korean', '사랑의 노래', 'SeeU Project', '2012-03-15', { vocaloid_banks: ['SeeU'], languages: ['ko'] }),
];

interface Page {
  data: { releases: Array<{ id: string }>; pagination: string };
}
interface FacetsBody {
  data: Record<'vocaloid_banks' | 'genres' | 'languages', Array<{ value: string; count: number }>> & { total: number };
}

describe.each(testDatabases())('search ($database)', ({ database, run }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, releases: catalogue });
  }, 60_000);
  afterAll(() => server?.close());

  async function ids(query: string): Promise<string[]> {
    const response = await server.get(`/api/v1/release?${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as Page).data.releases.map((r) => r.id.slice(4));
  }
  const q = (text: string, rest = '') => ids(`q=${encodeURIComponent(text)}&sort=-release_date${rest}`);

  it.skipIf(!run)('compares after NFKC, case folding and without diacritics', async () => {
    expect(await q('melt')).toEqual(['byryo', 'snowmelt', 'melted', 'meltdown', 'melt']);
    expect(await q('MELT')).toEqual(await q('melt'));
    expect(await q('ｍｅｌｔ')).toEqual(await q('melt'));
    expect(await q('Pokemon')).toEqual(['pokemon']);
    expect(await q('pokémon')).toEqual(['pokemon']);
    expect(await q('strasse')).toEqual(['strasse']);
  });

  it.skipIf(!run)('Latin terms match the beginning of a word, also past the indexed keys', async () => {
    expect(await q('hoshi')).toEqual(['hoshi']);
    expect(await q('boshi')).toEqual([]);
    expect(await q('hoshiboshi')).toEqual(['hoshi']);
    expect(await q('hoshibashi')).toEqual([]);
    expect(await q('telecaster')).toEqual(['long']);
    expect(await q('telecastor')).toEqual([]);
    expect(await q('m')).toContain('melt');
  });

  it.skipIf(!run)('Han, kana and Hangul terms match anywhere, from one character', async () => {
    expect(await q('初音')).toEqual(['mikuboso']);
    expect(await q('暴走')).toEqual(['mikuboso']);
    expect(await q('ミク')).toEqual(['mikuboso']);
    expect(await q('桜')).toEqual(['sakura']);
    expect(await q('ハッピー')).toEqual(['happy']);
    expect(await q('ｼﾝｾ')).toEqual(['happy']);
    expect(await q('노래')).toEqual(['korean']);
  });

  it.skipIf(!run)('a release matches when every term is in its title or its artist', async () => {
    expect(await q('melt lover')).toEqual(['byryo']);
    expect(await q('sky melt')).toEqual(['byryo']);
    expect(await q('melt heart')).toEqual(['melted']);
    expect(await q('melt nothing')).toEqual([]);
    expect(await q('ハッピー easypop')).toEqual(['happy']);
  });

  it.skipIf(!run)('combines with the filters (AND)', async () => {
    expect(await q('melt', '&vocaloid_banks=GUMI')).toEqual(['melted']);
    expect(await q('melt', '&genres=rock&languages=ja')).toEqual(['byryo', 'meltdown']);
  });

  it.skipIf(!run)(
    'ranks by relevance by default: title equal, title starting with it, every term in title, the rest',
    async () => {
      expect(await ids('q=melt')).toEqual(['melt', 'melted', 'meltdown', 'snowmelt', 'byryo']);
      expect(await ids('q=melt&sort=relevance')).toEqual(await ids('q=melt'));
      expect(await ids('q=melt&sort=release_date')).toEqual(['melt', 'meltdown', 'melted', 'snowmelt', 'byryo']);
    },
  );

  it.skipIf(!run)('pages through every tier by cursor, as one long page', async () => {
    const walked: string[] = [];
    let cursor = '';
    do {
      const response = await server.get(`/api/v1/release?q=melt&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (await response.json()) as Page;
      walked.push(...page.data.releases.map((r) => r.id.slice(4)));
      cursor = page.data.pagination;
      if (cursor) expect(response.headers.get('link')).toContain('q=melt');
    } while (cursor && walked.length < 10);
    expect(walked).toEqual(await ids('q=melt'));
  });

  it.skipIf(!run)('binds q into the cursor, in its compared form', async () => {
    const first = (await (await server.get('/api/v1/release?q=melt&limit=2')).json()) as Page;
    const next = first.data.pagination;
    expect(next).not.toBe('');
    expect(await ids(`q=MELT&limit=2&cursor=${next}`)).toEqual(['meltdown', 'snowmelt']);
    await expectProblem(await server.get(`/api/v1/release?q=meltdown&limit=2&cursor=${next}`), 'invalid-cursor', 400);
    await expectProblem(await server.get(`/api/v1/release?limit=2&cursor=${next}`), 'invalid-cursor', 400);
  });

  it.skipIf(!run)('refuses what is not a search, naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['sort=relevance', 'sort'],
      [`q=${'a'.repeat(101)}`, 'q'],
      [`q=${encodeURIComponent('a b c d e f g h i')}`, 'q'],
      ['q=a&q=b', 'q'],
      ['q=%00melt', 'q'],
      ['q=%E2%80%AEmelt', 'q'],
    ];
    for (const [query, parameter] of cases) {
      for (const path of ['/api/v1/release', '/api/v1/facets']) {
        if (path.endsWith('facets') && query.startsWith('sort')) continue;
        const problem = await expectProblem(await server.get(`${path}?${query}`), 'invalid-request', 400);
        expect(problem.errors?.[0], `${path}?${query}`).toMatchObject({ parameter });
      }
    }
  });

  it.skipIf(!run)('an empty q is no q; a q of only punctuation finds nothing', async () => {
    expect(await ids('q=%20%20')).toEqual(await ids(''));
    expect(await ids('q=!!!')).toEqual([]);
  });

  it.skipIf(!run)('facets count in context: each filter over q and the other filters', async () => {
    const body = async (query: string) =>
      ((await (await server.get(`/api/v1/facets?${query}`)).json()) as FacetsBody).data;
    const whole = await body('');
    expect(whole.total).toBe(catalogue.length);

    const melt = await body('q=melt');
    expect(melt.total).toBe(5);
    expect(melt.vocaloid_banks).toEqual([
      { value: 'Hatsune Miku', count: 3 },
      { value: 'GUMI', count: 1 },
      { value: 'Kagamine Rin', count: 1 },
    ]);

    // Choosing GUMI leaves the other banks' counts as they were (still OR-able), narrows the other filters.
    const gumi = await body('q=melt&vocaloid_banks=GUMI');
    expect(gumi.total).toBe(1);
    expect(gumi.vocaloid_banks).toEqual(melt.vocaloid_banks);
    expect(gumi.languages).toEqual([{ value: 'en', count: 1 }]);

    // A chosen value with no match is still listed, at 0.
    const none = await body('q=melt&vocaloid_banks=GUMI&genres=metal');
    expect(none.total).toBe(0);
    expect(none.genres).toContainEqual({ value: 'metal', count: 0 });
    expect(none.genres).toContainEqual({ value: 'rock', count: 1 });

    expect((await body('q=!!!')).total).toBe(0);
    await expectProblem(await server.get('/api/v1/facets?limit=1'), 'invalid-request', 400);
  });
});

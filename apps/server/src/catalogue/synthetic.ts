import type { ParsedReleaseInput } from '@releases/contract';

/**
 * A deterministic synthetic catalogue for benchmarks and scale tests: the same N and seed always give the
 * same releases. Voice banks follow a long tail (a few very common, several with a handful of releases),
 * so that broad and selective filters both exist at any size.
 */

/** mulberry32: tiny, fast, good enough for test data (not for secrets). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const commonBanks = [
  'Hatsune Miku',
  'Kagamine Rin',
  'Kagamine Len',
  'Megurine Luka',
  'GUMI',
  'IA',
  'KAITO',
  'MEIKO',
  'Kasane Teto',
  'Flower',
];
const midBanks = [
  'Yuzuki Yukari',
  'Otomachi Una',
  'Kaai Yuki',
  'Tohoku Kiritan',
  'Luo Tianyi',
  'Yuezheng Ling',
  'Yan He',
  'Xin Hua',
  'Stardust',
  'SeeU',
  'OLIVER',
  'Avanna',
  'Fukase',
  'Mayu',
  'Kizuna Akari',
  'Eleanor Forte',
  'Solaria',
  'KAFU',
  'Rikka',
  'Sekka Yufu',
  'Lily',
  'Gackpoid',
  'Chis-A',
  'v flower',
  'Frimomen',
  'Mai',
  'Galaco',
  'Aoki Lapis',
  'Nekomura Iroha',
  'Zunko',
];
/** Banks rare enough that filtering on them is selective: a handful of releases per 100,000 ... */
const rareBanks = ['Sweet Ann', 'Big Al', 'Prima', 'Tonio', 'Sonika', 'Lola', 'Leon', 'Miriam'];
/** ... and per 1,000,000. */
const veryRareBanks = ['Ruby', 'Dex', 'Daina', 'Clara'];
const genres = [
  'electropop',
  'rock',
  'j-pop',
  'ballad',
  'drum and bass',
  'future bass',
  'synthpop',
  'hardcore',
  'denpa',
  'jazz',
  'funk',
  'metal',
  'ambient',
  'chiptune',
  'hip hop',
  'city pop',
  'trance',
  'folk',
  'orchestral',
  'house',
  'math rock',
  'shoegaze',
  'dubstep',
  'lo-fi',
  'swing',
];
const languages = ['ja', 'en', 'zh-Hans', 'ko', 'es', 'zh-Hant', 'fr', 'pt-BR'];
const languageWeights = [0.62, 0.16, 0.1, 0.03, 0.03, 0.02, 0.02, 0.02];
const words = [
  'Melt',
  'World',
  'Star',
  'Night',
  'Rain',
  'Heart',
  'Ghost',
  'Rolling',
  'Girl',
  'Sky',
  'Paper',
  'Light',
  'Echo',
  'Tokyo',
  'Summer',
  'Blue',
  'Cinder',
  'Sand',
  'Planet',
  'Machine',
  'Love',
  'Dream',
  'Glass',
  'Moon',
  'Sakura',
  'Electric',
  'Angel',
  'Clock',
  'Voice',
  'Song',
  'Candy',
  'Neon',
  'Circuit',
  'Mirror',
  'Flower',
  'Telecaster',
];
/** Words of titles written in Japanese (a fifth of titles), so searches in kana and kanji have matches. */
const japaneseWords = [
  '初音',
  '桜',
  '夜',
  '歌',
  'ハッピー',
  '東京',
  '恋',
  '星',
  'ミク',
  '世界',
  '花火',
  '夢',
  '雨',
  'メルト',
];
const producers = Array.from({ length: 400 }, (_, i) => `Producer ${String(i + 1).padStart(3, '0')}`);

/**
 * The words titles and artists are made of, for benchmarks that search the synthetic catalogue (bench/ imports it
 * from the built server, where knip does not look).
 * @public
 */
export const syntheticVocabulary = { titleWords: words, japaneseWords, producers } as const;
const releaseTypes = ['single', 'single', 'single', 'single', 'ep', 'album', 'compilation'] as const;

const start = Date.UTC(2007, 7, 31);
const span = Date.UTC(2025, 11, 31) - start;

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function pickBank(random: () => number): string {
  const roll = random();
  if (roll < 0.00002) return pick(random, veryRareBanks);
  if (roll < 0.0004) return pick(random, rareBanks);
  if (roll < 0.55) return commonBanks[Math.floor(Math.pow(random(), 2) * commonBanks.length)]!;
  return pick(random, midBanks);
}

function pickLanguage(random: () => number): string {
  let roll = random();
  for (let i = 0; i < languages.length; i++) {
    roll -= languageWeights[i]!;
    if (roll < 0) return languages[i]!;
  }
  return languages[0]!;
}

function distinct(random: () => number, count: number, draw: (random: () => number) => string): string[] {
  const values = new Set<string>();
  for (let i = 0; i < count * 3 && values.size < count; i++) values.add(draw(random));
  return [...values];
}

export function* syntheticCatalogue(count: number, seed = 1): Generator<ParsedReleaseInput> {
  const random = prng(seed);
  for (let i = 0; i < count; i++) {
    const releaseType = pick(random, releaseTypes);
    const date = new Date(start + Math.floor(random() * span)).toISOString().slice(0, 10);
    const title =
      random() < 0.2
        ? `${pick(random, japaneseWords)}の${pick(random, japaneseWords)}`
        : `${pick(random, words)} ${pick(random, words)}${random() < 0.3 ? ` ${pick(random, words)}` : ''}`;
    const trackCount =
      releaseType === 'single'
        ? 1 + Math.floor(random() * 3)
        : releaseType === 'ep'
          ? 3 + Math.floor(random() * 5)
          : 8 + Math.floor(random() * 15);
    const id = `rel_syn${seed.toString(36)}x${i.toString(36).padStart(6, '0')}`;
    yield {
      id,
      title,
      artist: pick(random, producers),
      release_date: date,
      release_type: releaseType,
      vocaloid_banks: distinct(random, 1 + Math.floor(Math.pow(random(), 3) * 3), pickBank),
      genres: distinct(random, 1 + Math.floor(random() * 2.5), (r) => pick(r, genres)),
      languages: distinct(random, random() < 0.85 ? 1 : 2, pickLanguage),
      track_count: trackCount,
      cover_url: random() < 0.5 ? `https://covers.example.com/${id}.jpg` : null,
      links: random() < 0.6 ? [{ site: 'vocadb', url: `https://vocadb.net/S/${100000 + i}` }] : [],
    };
  }
}

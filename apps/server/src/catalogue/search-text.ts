/**
 * Text as search compares it (SPEC §3.6): Unicode NFKC, case folded, diacritics removed, cut into tokens.
 *
 * - A Latin token (any run of letters and digits outside the scripts below: Latin, Cyrillic, Greek...) is a
 *   word; a search term matches a word's beginning.
 * - A CJK token is a run of Han, Hiragana, Katakana or Hangul characters; a search term matches anywhere in it,
 *   from one character. These scripts do not separate words with spaces, so there is no "word beginning".
 * - Everything else (spaces, punctuation, symbols) separates tokens, and so does a change between the two
 *   kinds: `ミクsong` is `ミク` and `song`.
 *
 * Diacritics are removed by decomposing (NFD) and dropping the combining marks, but only outside the CJK
 * scripts: there, decomposing would turn `が` into `か` and a Hangul syllable into its letters.
 *
 * Searchable text is stored as its tokens joined by single spaces, after a leading space (` melt world`), so
 * that "a word begins with `t`" is `like '% t%'` and "the title starts with `q`" is `like ' q%'` in both
 * databases. Tokens hold only letters and digits, never `%`, `_` or a backslash: they need no escaping.
 */

const letterOrDigit = /[\p{L}\p{N}]/u;
// Script extensions, so that marks shared by the scripts count (`ー`, `々`); punctuation they share (`・`, `「`)
// is no letter, and separates.
const cjkScript = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
export const isCjkLetter = (character: string): boolean => cjkScript.test(character) && letterOrDigit.test(character);
const combiningMark = /\p{M}/gu;

export interface SearchToken {
  text: string;
  cjk: boolean;
}

/** Full case folding where JavaScript's `toLowerCase` stops short of it. */
function caseFold(text: string): string {
  return text.toLowerCase().replace(/ß/g, 'ss').replace(/ς/g, 'σ');
}

/** The tokens of `text`, in order. */
export function searchTokens(text: string): SearchToken[] {
  const tokens: SearchToken[] = [];
  let current = '';
  let currentCjk = false;
  const end = () => {
    if (current) tokens.push({ text: current, cjk: currentCjk });
    current = '';
  };
  for (const character of caseFold(text.normalize('NFKC'))) {
    if (isCjkLetter(character)) {
      if (!currentCjk) end();
      currentCjk = true;
      current += character;
      continue;
    }
    for (const part of character.normalize('NFD').replace(combiningMark, '')) {
      if (letterOrDigit.test(part)) {
        if (currentCjk) end();
        currentCjk = false;
        current += part;
      } else {
        end();
      }
    }
  }
  end();
  return tokens;
}

/** Text as stored for search: its tokens after a leading space, each after one space (` melt world`). */
export function searchableText(text: string): string {
  return searchTokens(text)
    .map((token) => ` ${token.text}`)
    .join('');
}

/**
 * How many characters of a word's beginning the index keys. A Latin term up to this long is found by its key
 * alone; a longer one by the key of its first characters, then checked on the stored text. Six keeps the index
 * at about two dozen rows per release while most words people type are whole keys.
 */
export const indexedPrefixLength = 6;

/** The first `length` characters (code points, so a character outside the BMP is never cut in two). */
function firstCharacters(text: string, length: number): string {
  const characters = [...text];
  return characters.length <= length ? text : characters.slice(0, length).join('');
}

/**
 * The index keys of one field's tokens: every beginning of a Latin word up to `indexedPrefixLength`
 * characters, and every character and pair of adjacent characters of a CJK run.
 */
export function tokenKeys(tokens: readonly SearchToken[]): Set<string> {
  const keys = new Set<string>();
  for (const token of tokens) {
    const characters = [...token.text];
    if (token.cjk) {
      for (let i = 0; i < characters.length; i++) {
        keys.add(characters[i]!);
        if (i + 1 < characters.length) keys.add(characters[i]! + characters[i + 1]!);
      }
    } else {
      for (let length = 1; length <= Math.min(characters.length, indexedPrefixLength); length++) {
        keys.add(characters.slice(0, length).join(''));
      }
    }
  }
  return keys;
}

/** The keys of a title's beginning: its stored text's first 1..`indexedPrefixLength` characters. */
export function startKeys(searchable: string): Set<string> {
  const characters = [...searchable.slice(1)];
  const keys = new Set<string>();
  for (let length = 1; length <= Math.min(characters.length, indexedPrefixLength); length++) {
    keys.add(characters.slice(0, length).join(''));
  }
  return keys;
}

/** A search term as the index finds it. */
export interface IndexedTerm {
  /** Keys a matching field has every one of. */
  keys: string[];
  /** When the keys only narrow the term down: the `like` pattern that decides (see `termPattern`). */
  exact: boolean;
  /** The `like` pattern matching a stored field that holds the term. */
  pattern: string;
}

/** How the index finds a field holding `token`, and the `like` pattern that says for certain. */
export function indexedTerm(token: SearchToken): IndexedTerm {
  const characters = [...token.text];
  if (token.cjk) {
    const pattern = `%${token.text}%`;
    if (characters.length <= 2) return { keys: [token.text], exact: true, pattern };
    const pairs = new Set<string>();
    for (let i = 0; i + 1 < characters.length; i++) pairs.add(characters[i]! + characters[i + 1]!);
    return { keys: [...pairs], exact: false, pattern };
  }
  return {
    keys: [firstCharacters(token.text, indexedPrefixLength)],
    exact: characters.length <= indexedPrefixLength,
    pattern: `% ${token.text}%`,
  };
}

/**
 * A search as the catalogue runs it: its distinct tokens (a term of several tokens, like `re:union`, adds each)
 * and the whole of it as stored text, for the relevance tiers. No tokens (`q=!!!`) matches nothing.
 */
export interface Search {
  tokens: SearchToken[];
  /** `q` as stored text (` melt world`): the title equal to it is the first tier, starting with it the second. */
  text: string;
}

export function parseSearch(q: string): Search {
  const all = searchTokens(q);
  const seen = new Set<string>();
  const tokens = all.filter((token) => !seen.has(token.text) && seen.add(token.text));
  return { tokens, text: all.map((token) => ` ${token.text}`).join('') };
}

import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * zxcvbn-ts with the common-passwords dictionary (the same list the server refuses from) and the keyboard
 * graphs. Only ever loaded by a dynamic import from the forms that choose a password: about 250 KB of
 * dictionary must not ride on the releases page (its JavaScript budget is 80 KB).
 */
const estimator = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, useLevenshteinDistance: true });

/** zxcvbn's warnings, in words (the library gives only keys unless a language pack is loaded). */
const warnings: Record<string, string> = {
  straightRow: 'Straight rows of keys on your keyboard are easy to guess.',
  keyPattern: 'Short keyboard patterns are easy to guess.',
  simpleRepeat: 'Repeated characters like "aaa" are easy to guess.',
  extendedRepeat: 'Repeated patterns like "abcabcabc" are easy to guess.',
  sequences: 'Common sequences like "abc" are easy to guess.',
  recentYears: 'Recent years are easy to guess.',
  dates: 'Dates are easy to guess.',
  topTen: 'This is one of the ten most used passwords.',
  topHundred: 'This is one of the hundred most used passwords.',
  common: 'This is a commonly used password.',
  similarToCommon: 'This is similar to a commonly used password.',
  wordByItself: 'Single words are easy to guess.',
  namesByThemselves: 'Single names or surnames are easy to guess.',
  commonNames: 'Common names and surnames are easy to guess.',
  userInputs: 'It should not contain your email address.',
  pwned: 'This password has appeared in a data breach.',
};

export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess). */
  score: ZxcvbnResult['score'];
  /** Why it is weak, in words, when zxcvbn says. */
  warning: string | undefined;
}

export function estimateStrength(password: string, userInputs: string[]): Strength {
  const result = estimator.check(password, userInputs);
  const key = result.feedback.warning;
  return { score: result.score, warning: key ? (warnings[key] ?? undefined) : undefined };
}

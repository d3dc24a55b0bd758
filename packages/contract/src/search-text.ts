import { limits } from './limits.js';
import { writtenTextProblem } from './written-text.js';

/** Why `text` (trimmed, non-empty) is not a search, or undefined when it is one (SPEC §3.6). */
export function searchTextProblem(text: string): string | undefined {
  if ([...text].length > limits.maxSearchLength) return `must be at most ${limits.maxSearchLength} characters`;
  const problem = writtenTextProblem(text);
  if (problem) return problem;
  if (text.split(/\s+/u).length > limits.maxSearchTerms) {
    return `must hold at most ${limits.maxSearchTerms} terms (words separated by spaces)`;
  }
  return undefined;
}

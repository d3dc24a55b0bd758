/**
 * Searches whose query plans both databases' plan tests check (`db/sqlite.query-plan.test.ts`,
 * `db/postgres.query-plan.test.ts`), over the synthetic catalogue's vocabulary.
 */
export const searchPlanCases = [
  ['a common word', 'love'],
  ['a rare word', 'telecaster'],
  ['two words', 'neon circuit'],
  ['a word and a producer', 'ghost 042'],
  ['a word longer than the keys', 'electric'],
  ['a Japanese word', '初音'],
  ['a Japanese word longer than a key', 'ハッピー'],
] as const;

/**
 * The zod schemas alone, without the ts-rest router: what the SDK's opt-in response validation needs, and
 * nothing that pulls in ts-rest.
 */
export * from './accounts.js';
export * from './problem.js';
export * from './release.js';

/**
 * The schema-free part of the contract: limits, header names, problem kinds, the API key format and the
 * comma-list rules and the rule for text a person writes. The SDK imports only this entry point, so a browser
 * bundle carries no zod.
 */
export * from './api-key-format.js';
export * from './comma-list.js';
export * from './headers.js';
export * from './limits.js';
export * from './paths.js';
export * from './problem-kinds.js';
export * from './search-text.js';
export * from './written-text.js';

export * from './wire.js';
export * from './contract.js';
export * from './accounts.js';
export * from './problem.js';
export * from './release.js';

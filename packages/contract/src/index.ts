export * from './wire.js';
export * from './contract.js';
export * from './problem.js';
export * from './release.js';

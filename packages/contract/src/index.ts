export * from './wire.js';
export * from './contract.js';
export * from './accounts.js';
export * from './problem.js';
export * from './release.js';
export * from './schema-names.js';
export * from './parameter-docs.js';
export * from './written-text-schema.js';

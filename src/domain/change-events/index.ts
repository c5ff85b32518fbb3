export * from './schema.js';
export * from './classify.js';
export * from './describe.js';
export * from './identifiers.js';
export * from './resource-index.js';
export * from './debounce.js';
export * from './intake.js';

export * from './decide.js';
export * from './describe.js';
export * from './inputs.js';
export * from './model.js';
export * from './plan-file.js';
export * from './references.js';

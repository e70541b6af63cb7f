export * from './decimal.js';
export * from './invalid-json-error.js';
export * from './json-number.js';
export * from './lossless-json.js';

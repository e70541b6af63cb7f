export * from './money/index.js';
export * from './auth/index.js';
export * from './ws/messages.js';
export * from './rest/paths.js';
export * from './errors/venue-codes.js';

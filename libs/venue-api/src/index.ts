export * from './money/index.js';
export * from './auth/signing.js';
export * from './ws/messages.js';
export * from './rest/paths.js';

export * from './money/index.js';
export * from './auth/index.js';
export * from './ws/messages.js';
export * from './rest/index.js';
export * from './errors/venue-codes.js';
export * from './ws/inbound.js';
export * from './ws/inbound-dtos.js';

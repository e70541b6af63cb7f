export * from './ws/messages.js';
export * from './rest/paths.js';

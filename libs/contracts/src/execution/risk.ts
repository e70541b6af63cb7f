export * from './risk-limits.js';
export * from './risk-control.js';

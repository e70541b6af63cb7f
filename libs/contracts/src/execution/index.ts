export * from './execution-subjects.js';
export * from './order-view.js';
export * from './place-order.js';
export * from './order-codes.js';

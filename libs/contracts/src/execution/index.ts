export * from './execution-subjects.js';
export * from './order-view.js';
export * from './place-order.js';

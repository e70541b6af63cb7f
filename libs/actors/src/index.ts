export { Actor, type ActorOptions, type ActorRef, type Transition, type TransitionFn } from './actor.js';
export { systemClock, type Cancel, type Clock } from './clock.js';
export { doublingDelay, reconnectDelay, type BackoffPolicy } from './backoff.js';
export { KeyedMailbox } from './keyed-mailbox.js';
export { BoundedMap } from './bounded-map.js';

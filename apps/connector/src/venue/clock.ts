/** The connector's actors take the one clock of the actor runtime (libs/actors). */
export { systemClock, type Cancel, type Clock as VenueClock } from '#actors';

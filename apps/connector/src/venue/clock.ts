/** Time and timers, injectable so the actors can be tested with a fake clock. */
export interface VenueClock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): Cancel;
  setInterval(callback: () => void, periodMs: number): Cancel;
}

export type Cancel = () => void;

export const systemClock: VenueClock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
  setInterval: (callback, periodMs) => {
    const timer = setInterval(callback, periodMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Time and timers, injected into every actor so transitions and timers are tested with a fake clock. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): Cancel;
  setInterval(callback: () => void, periodMs: number): Cancel;
}

export type Cancel = () => void;

/** The real clock. Timers are unref'd: a pending timer never keeps a stopping process alive. */
export const systemClock: Clock = {
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

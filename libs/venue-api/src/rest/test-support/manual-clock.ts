/** A limiter clock that only moves when a test says so. */
import type { LimiterClock, ScheduledCall } from '../rate-limiter.js';

export class ManualClock implements LimiterClock {
  private current: number;
  private timers: Array<{ at: number; callback: () => void; cancelled: boolean }> = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(callback: () => void, delayMs: number): ScheduledCall {
    const timer = { at: this.current + delayMs, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Pending (not cancelled) timers. */
  get pending(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  /** Moves time forward, firing due timers in time order. */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = this.timers.filter((timer) => !timer.cancelled && timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = until;
  }
}

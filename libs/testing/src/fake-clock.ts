import type { Cancel, Clock } from '#actors';

interface Timer {
  id: number;
  at: number;
  period: number | undefined;
  callback: () => void;
}

/** A clock for unit tests: time moves only when the test calls `advance`. */
export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): Cancel {
    return this.add(callback, delayMs, undefined);
  }

  setInterval(callback: () => void, periodMs: number): Cancel {
    return this.add(callback, periodMs, periodMs);
  }

  get pending(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward without firing anything: this process was stopped (SIGSTOP) while the world went on.
   * Timers that fell due fire at the next `advance`, once each, as a woken process's do.
   */
  jump(ms: number): void {
    this.current += ms;
    for (const timer of this.timers) if (timer.at < this.current) timer.at = this.current;
  }

  /** Moves time forward, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const next = this.timers.reduce<Timer | undefined>((a, t) => (a === undefined || t.at < a.at ? t : a), undefined);
      if (next === undefined || next.at > end) break;
      this.current = Math.max(this.current, next.at);
      if (next.period === undefined) this.timers = this.timers.filter((t) => t !== next);
      else next.at += Math.max(1, next.period);
      next.callback();
    }
    this.current = end;
  }

  private add(callback: () => void, delayMs: number, period: number | undefined): Cancel {
    const timer: Timer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), period, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }
}

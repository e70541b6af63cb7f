import { Inject, Injectable } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';

/**
 * §8 / R3: at most N requests in any sliding second per connecting IP. Uses the host's monotonic time,
 * not the venue clock, so an operator clock skew does not open or close the window.
 */
@Injectable()
export class RequestThrottle {
  private readonly arrivals = new Map<string, number[]>();

  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  /** Records the arrival; false when it is over the limit (an over-limit arrival is not counted). */
  admit(ip: string): boolean {
    const now = performance.now();
    const recent = (this.arrivals.get(ip) ?? []).filter((t) => now - t < 1000);
    if (recent.length >= this.config.restRateLimitPerSecond) {
      this.arrivals.set(ip, recent);
      return false;
    }
    recent.push(now);
    this.arrivals.set(ip, recent);
    return true;
  }
}

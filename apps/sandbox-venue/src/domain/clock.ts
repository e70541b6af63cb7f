import { Injectable } from '@nestjs/common';
import type { VenueClock } from '../ports.js';

/** Real time plus an operator-set skew (fault control: "skew the server clock"). */
@Injectable()
export class SkewableClock implements VenueClock {
  private skewMs = 0;

  now(): number {
    return Date.now() + this.skewMs;
  }

  setSkew(ms: number): void {
    this.skewMs = ms;
  }

  skew(): number {
    return this.skewMs;
  }
}

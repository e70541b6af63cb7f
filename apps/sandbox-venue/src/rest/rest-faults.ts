import { Injectable } from '@nestjs/common';

/** An operator-injected failure for the next `remaining` REST requests (fault control). */
export interface RestFault {
  /** Route template (e.g. `/api/3/trades`); undefined = every venue path. */
  path: string | undefined;
  /** 401 (rejection, e.g. token issuance), 429, or a 5xx. */
  status: number;
  remaining: number;
  /** Withdrawal submits/cancels: carry the request out, then answer the failure (§7.2 "outcome undefined"). */
  applyThenFail: boolean;
}

@Injectable()
export class RestFaults {
  private faults: RestFault[] = [];

  add(fault: RestFault): void {
    if (fault.remaining > 0) this.faults.push(fault);
  }

  clear(): void {
    this.faults = [];
  }

  pending(): readonly RestFault[] {
    return this.faults;
  }

  /** Takes one use of the first fault matching this route, if any. */
  take(template: string): RestFault | undefined {
    const fault = this.faults.find((f) => f.path === undefined || f.path === template);
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}

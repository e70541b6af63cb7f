/**
 * §4.12 address list. `version` increments on every change of the list (operator action); the sandbox
 * posts from loopback, so the list starts as `127.0.0.1/32` (spec-gaps R13). The notice's `effective_date` is
 * written as the dialect says (`ipsNoticeDate`: the operator's text, or epoch milliseconds as a JSON number).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import type { WireValue } from '../http/json.js';
import { VENUE_CLOCK, type VenueClock } from '../ports.js';
import { isoUtc } from '../domain/time-format.js';

export type ChangeNotice = {
  message: string;
  effective_date: string;
};

@Injectable()
export class WebhookIpList {
  private version = 1;
  private cidrs: string[] = ['127.0.0.1/32'];
  private readonly createdAt: string;
  private lastUpdated: string;
  private changeNotice: ChangeNotice | null = null;

  constructor(
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Optional() @Inject(SANDBOX_CONFIG) private readonly config?: SandboxConfig,
  ) {
    this.createdAt = isoUtc(clock.now());
    this.lastUpdated = this.createdAt;
  }

  /** Replaces the list; the version moves only when the list really changes. */
  setCidrs(cidrs: string[], changeNotice: ChangeNotice | null): void {
    const changed = cidrs.join(',') !== this.cidrs.join(',');
    this.changeNotice = changeNotice;
    if (!changed) return;
    this.cidrs = [...cidrs];
    this.version += 1;
    this.lastUpdated = isoUtc(this.clock.now());
  }

  document(): WireValue {
    return {
      service: 'svc-webhooks',
      version: this.version,
      ipv4_cidrs: this.cidrs,
      created_at: this.createdAt,
      last_updated: this.lastUpdated,
      change_notice: this.noticeOnTheWire(),
    };
  }

  private noticeOnTheWire(): WireValue {
    if (this.changeNotice === null) return null;
    if (this.config?.dialect.ipsNoticeDate !== 'epoch-ms') return this.changeNotice;
    const at = Date.parse(this.changeNotice.effective_date);
    if (Number.isNaN(at)) return this.changeNotice;
    return { ...this.changeNotice, effective_date: at };
  }
}

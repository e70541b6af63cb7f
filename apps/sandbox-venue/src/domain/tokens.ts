import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import { VENUE_CLOCK, type TokenRegistry, type VenueClock } from '../ports.js';

interface IssuedToken {
  userUuid: string;
  expiresAt: number;
}

/** Single-use WebSocket tokens (§4.2, §5): consumed on presentation, expire after `tokenTtlMs`. */
@Injectable()
export class WsTokenRegistry implements TokenRegistry {
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
  ) {}

  issue(userUuid: string): { token: string; expiresAt: number } {
    this.sweep();
    const token = randomBytes(24).toString('base64url');
    const expiresAt = this.clock.now() + this.config.tokenTtlMs;
    this.tokens.set(token, { userUuid, expiresAt });
    return { token, expiresAt };
  }

  consume(token: string): { userUuid: string } | undefined {
    const issued = this.tokens.get(token);
    if (issued === undefined) return undefined;
    this.tokens.delete(token);
    if (issued.expiresAt <= this.clock.now()) return undefined;
    return { userUuid: issued.userUuid };
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [t, i] of this.tokens) if (i.expiresAt <= now) this.tokens.delete(t);
  }
}

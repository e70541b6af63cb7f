import { performance } from 'node:perf_hooks';

/**
 * The per-account limits of §8 on a monotonic clock (an operator's clock skew must not open or close
 * them): W14 a sliding one-second window over client messages, W15 the spacing of accepted orders.
 */
export class AccountLimits {
  private readonly messages = new Map<string, number[]>();
  private readonly lastOrder = new Map<string, number>();

  constructor(
    private readonly messagesPerSecond: number,
    private readonly orderSpacingMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts one client message; false when it is over the limit (and must be dropped). */
  admitMessage(account: string): boolean {
    const now = this.now();
    const window = (this.messages.get(account) ?? []).filter((t) => now - t < 1000);
    if (window.length >= this.messagesPerSecond) {
      this.messages.set(account, window);
      return false;
    }
    window.push(now);
    this.messages.set(account, window);
    return true;
  }

  /** True and records the order when the account's previous accepted order is at least the spacing old. */
  admitOrder(account: string): boolean {
    const now = this.now();
    const last = this.lastOrder.get(account);
    if (last !== undefined && now - last < this.orderSpacingMs) return false;
    this.lastOrder.set(account, now);
    return true;
  }
}

/**
 * Orders this instance settled lately (bounded), by clientRequestId: an outcome the connector publishes after
 * the order's actor closed is checked against the final state kept, so a contradiction (FAILED after SUCCESS,
 * or the reverse) is reported rather than dropped unseen. The first final state always stands.
 */
import { contradicts, type OrderOutcome, type OrderOutcomeStatus } from '#contracts';
import { BoundedMap } from '#actors';
import type { Contradiction } from './order-machine.js';

/** Enough for the outcomes still on their way when an order closes; the oldest are forgotten first. */
const REMEMBERED = 10_000;

export class SettledOrders {
  private readonly finals: BoundedMap<string, OrderOutcomeStatus>;

  constructor(limit = REMEMBERED) {
    this.finals = new BoundedMap(limit);
  }

  settle(clientRequestId: string, status: OrderOutcomeStatus): void {
    this.finals.set(clientRequestId, status);
  }

  /** What `outcome` contradicts of a settled order's final state; undefined when nothing (or not settled here). */
  contradiction(outcome: OrderOutcome): Contradiction | undefined {
    const kept = this.finals.get(outcome.clientRequestId);
    if (kept === undefined || !contradicts(kept, outcome.status)) return undefined;
    return { kept, status: outcome.status, source: outcome.source };
  }
}

/**
 * The one order-status lattice of the gateway: which statuses are final, which still need reconciling,
 * and which status may follow which. Every component that decides "is this order done?" asks here.
 *
 *   PENDING        the venue accepted the order; no outcome yet
 *   UNKNOWN        the gateway lost sight of the order (frame may have left, no reply); reconciled until evidence
 *   INDETERMINATE  the venue itself says the outcome is unknown and it may have filled; reconciled until evidence
 *   SUCCESS        filled — final
 *   FAILED         not filled; only on venue evidence (or a command that certainly never left) — final
 *
 * A status only moves up the lattice: PENDING → UNKNOWN → INDETERMINATE → SUCCESS | FAILED (steps may be
 * skipped). Nothing follows a final status, so each order has exactly one final outcome, and an order of
 * unknown outcome is never turned into FAILED by the passing of time, only by evidence.
 */
export const ORDER_OUTCOME_STATUSES = ['PENDING', 'UNKNOWN', 'INDETERMINATE', 'SUCCESS', 'FAILED'] as const;
export type OrderOutcomeStatus = (typeof ORDER_OUTCOME_STATUSES)[number];

const RANK: Readonly<Record<OrderOutcomeStatus, number>> = {
  PENDING: 0,
  UNKNOWN: 1,
  INDETERMINATE: 2,
  SUCCESS: 3,
  FAILED: 3,
};

/** Position in the lattice: higher says more about the order (both final statuses share the top). */
export function statusRank(status: OrderOutcomeStatus): number {
  return RANK[status];
}

/** Nothing follows: the order's one final outcome. */
export function isFinalStatus(status: OrderOutcomeStatus): boolean {
  return RANK[status] === 3;
}

/** Not final, and the venue has not told us the order is merely in progress: keep resolving it from evidence. */
export function needsReconciliation(status: OrderOutcomeStatus): boolean {
  return status === 'UNKNOWN' || status === 'INDETERMINATE';
}

/** Whether `next` may be published after `current` (undefined: nothing published yet). */
export function canFollow(current: OrderOutcomeStatus | undefined, next: OrderOutcomeStatus): boolean {
  if (current === undefined) return true;
  return RANK[next] > RANK[current];
}

/**
 * `incoming` is a final status other than the final one already held (FAILED after SUCCESS, or the reverse):
 * the venue's evidence disagrees with itself. The first final stands and is never replaced; the contradiction is
 * reported (a counter and a warning), for an operator to settle with the venue.
 */
export function contradicts(held: OrderOutcomeStatus | undefined, incoming: OrderOutcomeStatus): boolean {
  return held !== undefined && isFinalStatus(held) && isFinalStatus(incoming) && held !== incoming;
}

export function isOrderOutcomeStatus(value: unknown): value is OrderOutcomeStatus {
  return typeof value === 'string' && (ORDER_OUTCOME_STATUSES as readonly string[]).includes(value);
}

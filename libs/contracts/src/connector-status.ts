/** Last-value message on `{prefix}.{account}.connector.status`. */
export type SessionState = 'idle' | 'fetchingToken' | 'connecting' | 'open' | 'backoff' | 'draining' | 'stopped';

export interface ConnectorStatus {
  v: 1;
  account: string;
  sessionState: SessionState;
  /** Epoch ms the session entered its state. */
  since: number;
  reconnects: number;
  subscriptions: { live: number; stale: number; pending: number };
  /** Age of the newest price published, ms; absent before the first price. */
  lastPriceAgeMs?: number;
  /**
   * How long each order waiting to be sent holds the ones behind it now, ms (whole): the mean of the last few
   * orders' cycles — the order gap, or the venue's late answer + its interval — never below the gap. An order with
   * N commands ahead of it leaves in about (N + 1) × this. Absent from a connector older than it.
   */
  orderQueuePaceMs?: number;
  /**
   * Epoch ms this connector process started (the same in every status of one life): a later value means it was
   * restarted — a live price heard before that life's first status is the earlier life's, which no one keeps
   * fresh. Absent from a connector older than it.
   */
  startedAt?: number;
  publishedAt: number;
}

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
  publishedAt: number;
}

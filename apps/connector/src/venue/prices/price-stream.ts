import type { PriceMessage } from '#contracts';

/** One venue subscription shared by every requester of the same (group, pair, tenor, currency, size). */
export interface PriceStream {
  readonly key: string;
  /** Unique per stream for the registry's life; sent on every subscribe of this stream, echoed on prices. */
  readonly tag: string;
  readonly accountGroup: string;
  readonly instrument: string;
  readonly tenor: string;
  readonly currency: string;
  /** As first requested. */
  readonly quantity: string;
  /** pending: not sent (no connection); subscribing: sent, no ack yet; held: the venue acked. */
  venue: 'pending' | 'subscribing' | 'held';
  /** Bumped on every (re)subscribe and connection loss, so a late limiter grant of an old attempt is void. */
  attempt: number;
  subscriptionId: string | undefined;
  /** Local epoch ms the pending subscribe left; an unanswered one is sent again (the venue may drop it, W14). */
  subscribeSentAt: number | undefined;
  /** Published status; `none` until the first price. */
  status: 'none' | 'live' | 'stale';
  /** Venue timestamp of the newest accepted update (§2.2: order by it, not by arrival). */
  lastTimestamp: number;
  /** Local epoch ms of the newest accepted update (or of the ack, before the first one). */
  lastUpdateAt: number;
  last: PriceMessage | undefined;
  /** requester → lease expiry (epoch ms). */
  readonly leases: Map<string, number>;
  readonly waiters: StreamWaiter[];
}

export type AcquireResult = { ok: true; leaseExpiresAt: number } | { ok: false; code: string; message: string };

export interface StreamWaiter {
  requester: string;
  leaseExpiresAt: number;
  settle: (result: AcquireResult) => void;
}

export interface StreamKeyFields {
  accountGroup: string;
  instrument: string;
  tenor: string;
  currency: string;
  quantity: string;
}

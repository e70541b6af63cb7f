/** What every resource's read is given by the engine (sync-engine.ts): the venue, the mirrors, the stop. */
import type { BalanceState } from '#contracts';
import type { JsonLogger } from '#observability';
import type { CreditLimit, Participant, TradablePair, Trade, TransferRecord, VenueRestClient } from '#venue-api';
import type { StateMirror } from './state-mirror.js';
import type { SyncMetrics } from './sync-metrics.js';
import type { SyncStop } from './sync-stop.js';

/**
 * `full`: the whole resource (at start); `incremental`: the periodic run (trades and transactions: what is new,
 * then a few pages of the sweep, list-walks.ts); `recent`: after a trigger (trades and transactions: what is new
 * only; the other resources read as in `incremental`).
 */
export type SyncMode = 'full' | 'incremental' | 'recent';

export interface Mirrors {
  balance: StateMirror<BalanceState>;
  trade: StateMirror<Trade>;
  transfer: StateMirror<TransferRecord>;
  accountDetails: StateMirror<Participant>;
  beneficiary: StateMirror<Participant>;
  sender: StateMirror<Participant>;
  limit: StateMirror<CreditLimit>;
  pair: StateMirror<TradablePair>;
}

export interface ReadContext {
  client: VenueRestClient;
  mirrors: Mirrors;
  metrics: SyncMetrics;
  log: JsonLogger;
  now(): number;
  overlapMs: number;
  /** Pages of 200 each periodic run reads of a sweep pass, per list (`SYNC_SWEEP_PAGES`). */
  sweepPages: number;
  stop: SyncStop;
}

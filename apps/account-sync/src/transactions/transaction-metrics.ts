import { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '#observability';

export type IngestOutcome = 'stored' | 'duplicate' | 'stale' | 'store_failed';

export class TransactionMetrics {
  /** Every record offered to the ledger, by source (webhook, list) and result. */
  readonly ingested: Counter<'source' | 'result'>;
  /** Stored transaction states by state (a REVERSED or CANCELLED leg is a failed transfer). */
  readonly states: Counter<'state'>;
  /** Time from a record's arrival at the ledger to its durable answer. */
  readonly storeSeconds: Histogram<'source'>;
  /** States this process stored that were later not found on the stream (stored again). */
  readonly lost: Counter;
  /** Legs only a webhook gave that the venue's list still did not show `TRANSACTION_UNCONFIRMED_AFTER_MS` later. */
  readonly unconfirmed: Counter;

  constructor(registry: MetricsRegistry) {
    this.ingested = new Counter({
      name: 'account_sync_transactions_ingested_total',
      help: 'Transaction records offered to the ledger, by source and result (stored, duplicate, stale, store_failed; the list: disputed, corrected)',
      labelNames: ['source', 'result'],
      registers: [registry],
    });
    // from zero, so that an alert on their increase sees the first one (a series born at 1 has increased by nothing)
    for (const result of ['disputed', 'corrected', 'store_failed']) this.ingested.inc({ source: 'list', result }, 0);
    this.ingested.inc({ source: 'webhook', result: 'store_failed' }, 0);
    this.states = new Counter({
      name: 'account_sync_transaction_states_total',
      help: 'Transaction states stored and published, by state',
      labelNames: ['state'],
      registers: [registry],
    });
    this.lost = new Counter({
      name: 'account_sync_transaction_states_lost_total',
      help: 'Transaction states stored and acknowledged, later not found on the stream when read back (stored again)',
      registers: [registry],
    });
    this.unconfirmed = new Counter({
      name: 'account_sync_transactions_unconfirmed_total',
      help: "Transaction legs only a webhook gave that the venue's transaction list did not show TRANSACTION_UNCONFIRMED_AFTER_MS later (flagged once each)",
      registers: [registry],
    });
    this.storeSeconds = new Histogram({
      name: 'account_sync_transaction_store_seconds',
      help: 'Time to store a transaction record durably (or find it stored)',
      labelNames: ['source'],
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [registry],
    });
  }
}

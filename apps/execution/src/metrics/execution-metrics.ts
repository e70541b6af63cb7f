/**
 * The execution app's metrics. Labels are bounded: states and evidence sources are closed sets; reject codes
 * are kept to the first `maxLabelValues` distinct values (then `other`); a strategy id has its own label only
 * once configured or with an accepted order, up to `maxLabelValues` of them (`metric-labels.ts`).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { CONTRADICTED_FAILURE_RESULTS } from '../orders/contradicted-failure.js';
import { UNDONE_FILL_RESULTS } from '../orders/undone-trade.js';
import type { MetricsRegistry } from '#observability';
import { CONTRADICTION_SOURCES } from '../orders/order-machine.js';
import { QUEUE_RESULTS } from '../api/order-queue.js';
import { BoundedLabel, StrategyLabels } from './metric-labels.js';

/** How a non-final order came to this instance: at its start-up, taken over from a dead instance, or read again. */
export const RESUME_WAYS = ['startup', 'takeover', 'retry'] as const;
export type ResumeWay = (typeof RESUME_WAYS)[number];

export interface ExecutionGaugeSource {
  ordersByState(): Record<string, number>;
  unresolved(): { count: number; oldestAgeMs: number };
  startupReconciling(): boolean;
  /** A connector was heard with its venue session open within CONNECTOR_STALE_MS. */
  connectorUsable(): boolean;
}

export class ExecutionMetrics {
  readonly ordersEntered: Counter<'state' | 'strategy'>;
  readonly rejections: Counter<'code' | 'strategy'>;
  readonly reconciliationAttempts: Counter<'source' | 'result'>;
  readonly hop: Histogram;
  readonly duplicates: Counter<'result'>;
  readonly resumed: Counter<'how'>;
  readonly journalConflicts: Counter;
  readonly outcomeContradictions: Counter<'source'>;
  readonly undoneFills: Counter<'result'>;
  readonly contradictedOutcomes: Counter<'result'>;
  readonly ordersRecalled: Counter;
  readonly queueEstimates: Counter<'result'>;
  private readonly strategies: StrategyLabels;
  private readonly codes: BoundedLabel;

  /** `configuredStrategies`: the strategies of the risk limits file, labelled from the start. */
  constructor(
    registry: MetricsRegistry,
    source: ExecutionGaugeSource,
    maxLabelValues = 100,
    configuredStrategies: Iterable<string> = [],
  ) {
    const registers = [registry];
    this.strategies = new StrategyLabels(maxLabelValues, configuredStrategies);
    this.codes = new BoundedLabel(maxLabelValues);
    this.ordersEntered = new Counter({
      name: 'execution_orders_total',
      help: 'Orders entering each state, by strategy (bounded).',
      labelNames: ['state', 'strategy'],
      registers,
    });
    this.rejections = new Counter({
      name: 'execution_order_rejections_total',
      help: 'Place requests refused, by reason code and strategy (bounded).',
      labelNames: ['code', 'strategy'],
      registers,
    });
    this.reconciliationAttempts = new Counter({
      name: 'execution_reconciliation_attempts_total',
      help: 'Evidence reads for orders not final: connector outcome stream, trade list, order-state endpoint.',
      labelNames: ['source', 'result'],
      registers,
    });
    // At 0 from the start: GatewayReconciliationFailing clears on increase() of a success, and a series born at
    // 1 shows no increase (outside tester: the alert fired on for minutes after the order was settled).
    for (const source of ['trade-list', 'order-state'] as const) {
      for (const result of ['found', 'none', 'unreachable'] as const)
        this.reconciliationAttempts.inc({ source, result }, 0);
    }
    for (const result of ['found', 'none', 'final', 'unreachable'] as const) {
      this.reconciliationAttempts.inc({ source: 'connector', result }, 0);
    }
    this.hop = new Histogram({
      name: 'execution_order_hop_seconds',
      help: 'Place request received → order command stored in the connector’s stream (intent write included).',
      buckets: [0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01, 0.025, 0.1, 1],
      registers,
    });
    this.duplicates = new Counter({
      name: 'execution_idempotent_replays_total',
      help: 'Place requests with a known idempotency key: same payload (existing), another payload (refused), or a key whose order was never placed whole and can no longer be sent (abandoned: the key passes to a new order)',
      labelNames: ['result'],
      registers,
    });
    this.resumed = new Counter({
      name: 'execution_orders_resumed_total',
      help: 'Non-final orders resumed (reconciled, never re-sent): at start-up or taken over from a dead instance.',
      labelNames: ['how'],
      registers,
    });
    for (const how of RESUME_WAYS) this.resumed.inc({ how }, 0);
    this.journalConflicts = new Counter({
      name: 'execution_journal_conflicts_total',
      help: 'Order writes refused by compare-and-set (the order moved to another instance).',
      registers,
    });
    this.outcomeContradictions = new Counter({
      name: 'execution_order_outcome_contradictions_total',
      help: 'Venue evidence contradicting the final state of an order (the state stands; a contradicted FAILED is checked against the trade list), by source.',
      labelNames: ['source'],
      registers,
    });
    for (const source of CONTRADICTION_SOURCES) this.outcomeContradictions.inc({ source }, 0);
    this.undoneFills = new Counter({
      name: 'execution_undone_fills_total',
      help: 'Undone trades (CANCELLED or FAILED after executing) account-sync reported, by what execution did: taken-back (the fill left positions and exposure), not-ours, not-filled, not-its-trade, unreadable.',
      labelNames: ['result'],
      registers,
    });
    for (const result of UNDONE_FILL_RESULTS) this.undoneFills.inc({ result }, 0);
    this.contradictedOutcomes = new Counter({
      name: 'execution_order_contradictions_reviewed_total',
      help: 'Contradictions of a published final outcome the connector reported, by what execution concluded: executed-after-failed (the trade list holds the trade of an order reported FAILED: its fill booked), failed-stands, success-kept, not-ours, unreadable.',
      labelNames: ['result'],
      registers,
    });
    for (const result of CONTRADICTED_FAILURE_RESULTS) this.contradictedOutcomes.inc({ result }, 0);
    this.ordersRecalled = new Counter({
      name: 'execution_orders_recalled_total',
      help: 'Orders of a halted scope, accepted before the halt and maybe not sent yet, recalled from the connector.',
      registers,
    });
    this.queueEstimates = new Counter({
      name: 'execution_order_queue_estimates_total',
      help: 'Orders estimated at intake against the order queue (api/order-queue.ts), by result: refused (ORDER_QUEUE_FULL: it could not leave before its send deadline), passed, no_pace (no connector pace heard lately: taken without an estimate), no_backlog (the command stream unreadable: likewise).',
      labelNames: ['result'],
      registers,
    });
    for (const result of QUEUE_RESULTS) this.queueEstimates.inc({ result }, 0);
    new Gauge({
      name: 'execution_orders_open',
      help: 'Orders this instance handles, by state.',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        for (const [state, count] of Object.entries(source.ordersByState())) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'execution_unresolved_orders',
      help: 'Orders of unknown outcome (UNKNOWN, INDETERMINATE) this instance is resolving.',
      registers,
      collect() {
        this.set(source.unresolved().count);
      },
    });
    new Gauge({
      name: 'execution_oldest_unresolved_age_seconds',
      help: 'Age of the oldest order of unknown outcome (0 when none): an alert signal.',
      registers,
      collect() {
        this.set(source.unresolved().oldestAgeMs / 1_000);
      },
    });
    new Gauge({
      name: 'execution_connector_usable',
      help: '1 while a connector was heard with its venue session open within CONNECTOR_STALE_MS; 0: orders accepted fail SEND_DEADLINE_PASSED.',
      registers,
      collect() {
        this.set(source.connectorUsable() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'execution_startup_reconciling',
      help: '1 while orders resumed at start-up are not yet checked against the venue: new orders are refused.',
      registers,
      collect() {
        this.set(source.startupReconciling() ? 1 : 0);
      },
    });
  }

  /** An order of `strategy` entered `state`: it was accepted, so the strategy is a real one. */
  entered(state: string, strategy: string): void {
    this.strategies.admit(strategy);
    this.ordersEntered.inc({ state, strategy: this.strategies.of(strategy) });
  }

  rejected(code: string, strategy: string | undefined): void {
    this.rejections.inc({
      code: this.codes.of(code),
      strategy: strategy === undefined ? 'unknown' : this.strategies.of(strategy),
    });
  }
}

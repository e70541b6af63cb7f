import { Counter, Gauge } from 'prom-client';
import { RISK_AUDIT_KINDS, RiskCode } from '#contracts';
import type { MetricsRegistry } from '#observability';

/** How a change of a trading state or of limits ended (`execution_risk_control_changes_total{result}`). */
export const RISK_CONTROL_RESULTS = ['applied', 'conflict', 'store-failed', 'audit-failed'] as const;

/** Why an applied change's answer carried a warning (`execution_risk_control_warnings_total{reason}`). */
export const RISK_CONTROL_WARNINGS = [
  'unlisted-account-group',
  'account-groups-unchecked',
  'unknown-strategy',
] as const;
export type RiskControlWarning = (typeof RISK_CONTROL_WARNINGS)[number];

/**
 * Metrics of pre-trade risk, labels bounded: a refusal code is one of `RiskCode`, a scope one of global /
 * accountGroup / strategy, a state one of ACTIVE / REDUCING / HALTED (never a strategy's or group's id).
 */
export class RiskMetrics {
  readonly admitted: Counter;
  readonly refusals: Counter<'code'>;
  readonly tradingStates: Gauge<'scope' | 'state'>;
  readonly storeReadable: Gauge;
  readonly openOrders: Gauge<'status'>;
  readonly controlChanges: Counter<'kind' | 'result'>;
  readonly controlWarnings: Counter<'reason'>;
  readonly eventsIgnored: Counter;
  readonly positionWriteFailures: Counter;
  readonly limitUtilisation: Gauge<'limit' | 'scope'>;
  readonly admissionRetries: Counter;
  readonly admissionsUnsequenced: Counter;

  private utilisation: () => Iterable<[{ limit: string; scope: string }, number]> = () => [];

  /** Risk tells how to read the limits' use now (the gauge is read at scrape time, never left at an old order's). */
  watchUtilisation(read: () => Iterable<[{ limit: string; scope: string }, number]>): void {
    this.utilisation = read;
  }

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.admitted = new Counter({
      name: 'execution_risk_admitted_total',
      help: 'Orders that passed every pre-trade check',
      registers,
    });
    this.refusals = new Counter({
      name: 'execution_risk_refusals_total',
      help: 'Orders refused by pre-trade risk, by code (TRADING_HALTED, QUOTE_EXPIRED, RISK_…)',
      labelNames: ['code'],
      registers,
    });
    // At 0 from the start (runbook TradingHalted reads them): "none refused" is not "no data"
    for (const code of Object.values(RiskCode)) this.refusals.inc({ code }, 0);
    this.tradingStates = new Gauge({
      name: 'execution_risk_trading_state',
      help: 'Trading states: global is 1 for its state; accountGroup/strategy count the scopes in each state (never-set scopes are ACTIVE and not counted)',
      labelNames: ['scope', 'state'],
      registers,
    });
    this.storeReadable = new Gauge({
      name: 'execution_risk_state_store_readable',
      help: '1 while the trading-state store (NATS KV) is read and watched; 0: every order is refused (fail closed)',
      registers,
    });
    this.openOrders = new Gauge({
      name: 'execution_risk_open_orders',
      help: 'Admitted orders counted as in flight, by status (in-flight, unknown)',
      labelNames: ['status'],
      registers,
    });
    this.controlChanges = new Counter({
      name: 'execution_risk_control_changes_total',
      help: 'Changes of trading states and limits over NATS or configuration, by kind (state, limits) and result',
      labelNames: ['kind', 'result'],
      registers,
    });
    for (const kind of RISK_AUDIT_KINDS) {
      for (const result of RISK_CONTROL_RESULTS) this.controlChanges.inc({ kind, result }, 0);
    }
    this.controlWarnings = new Counter({
      name: 'execution_risk_control_warnings_total',
      help: 'Applied changes whose answer carried a warning, by reason (unlisted-account-group: the venue does not list it; account-groups-unchecked: the connector could not be asked; unknown-strategy: no order, position or limits of its own here)',
      labelNames: ['reason'],
      registers,
    });
    // at 0 from the start: a halt of a mistyped id shows as a rise on the dashboard
    for (const reason of RISK_CONTROL_WARNINGS) this.controlWarnings.inc({ reason }, 0);
    const utilisation = () => this.utilisation();
    this.limitUtilisation = new Gauge({
      name: 'execution_risk_limit_utilisation',
      help: 'Share of a limit in use (1 = all) now, of the scopes that traded; per scope kind, the most used scope (limit: open_exposure, notional_per_minute, orders_per_minute)',
      labelNames: ['limit', 'scope'],
      registers,
      collect() {
        this.reset(); // a limit no longer set is no longer shown
        for (const [labels, ratio] of utilisation()) this.set(labels, ratio);
      },
    });
    this.positionWriteFailures = new Counter({
      name: 'execution_risk_position_write_failures_total',
      help: 'Fills that could not be added to the durable risk positions (NATS KV); a restart would not count them',
      registers,
    });
    this.admissionRetries = new Counter({
      name: 'execution_risk_admission_retries_total',
      help: "Admissions decided again because another instance's admission was published first",
      registers,
    });
    this.admissionsUnsequenced = new Counter({
      name: 'execution_risk_admissions_unsequenced_total',
      help: 'Orders admitted by this instance alone because the admission stream could not take them in sequence (limits may be overshot across instances)',
      registers,
    });
    this.eventsIgnored = new Counter({
      name: 'execution_risk_events_ignored_total',
      help: 'Order events risk could not use (e.g. a fill without decimal amounts)',
      registers,
    });
  }
}

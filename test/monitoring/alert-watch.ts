/**
 * What the two Prometheus scenarios share: waiting for exactly a set of alerts to fire, the record of every
 * alert raised, and which scenario raises which alert (together they raise every shipped alert).
 */
import { eventually } from '#testing';
import { metricValue } from '../connector/connector-stack.js';
import type { RunningPrometheus } from './prometheus-harness.js';

/**
 * Alerts raised by the fault scenario (prometheus-faults.e2e-spec.ts): each needs a fault of its own (a
 * resource the venue cannot serve, a balance moved without a leg, an app restarted into a fault, a bucket
 * refusing writes, another instance holding the account, a second connector on the venue session id, a withdrawal
 * the venue carries out twice, one it carries out after answering 401 to it, unsubscribes the venue drops,
 * nats-server restarted on an empty store — with the venue's fiat withdrawal list unreadable, so the withdrawal
 * records it lost cannot be restored). The main scenario (prometheus.e2e-spec.ts) raises every other shipped alert.
 */
export const RAISED_BY_FAULT_SCENARIO = [
  'GatewayAccountSyncFailing',
  'GatewayAccountSyncStandby',
  'GatewayAccountSyncStale',
  'GatewayBalanceDrift',
  'GatewayExecutionOrderUnresolved',
  'GatewayReconciliationFailing',
  'GatewayRiskPositionWriteFailing',
  'GatewayStartupReconciliationStuck',
  'GatewayVenueSessionContested',
  'GatewayWebhookSourcesUnloaded',
  'GatewayWithdrawalDuplicated',
  'GatewayWithdrawalCarriedOutAfterRejection',
  'GatewayVenueOrphanSubscriptions',
  'GatewayVenueClockBehind',
  'GatewayNatsStoreLost',
  'GatewayPriceSubjectsUnrecorded',
  'GatewayWithdrawalsRestoring',
] as const;

export interface AlertWatch {
  /** Every alert seen firing in an `expectFiring` that asked for it. */
  readonly raised: ReadonlySet<string>;
  /**
   * Waits until exactly `expected` are firing (the others are not), and records them as raised. `mayFire`: alerts a
   * step may raise or not (a load-dependent side effect, proven by a step of its own), left out of the comparison.
   */
  expectFiring(
    expected: readonly string[],
    what: string,
    timeoutMs?: number,
    mayFire?: readonly string[],
  ): Promise<void>;
}

export function watchAlerts(prometheus: () => RunningPrometheus): AlertWatch {
  const raised = new Set<string>();
  return {
    raised,
    async expectFiring(expected, what, timeoutMs = 20_000, mayFire = []) {
      let last: string[] = [];
      await eventually(
        async () => {
          last = await prometheus().firing();
          const compared = last.filter((name) => expected.includes(name) || !mayFire.includes(name));
          return compared.join() === [...expected].sort().join() ? true : undefined;
        },
        { what: `${what}: firing ${JSON.stringify(expected)}`, timeoutMs, intervalMs: 250 },
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; firing at the end: ${JSON.stringify(last)}`);
      });
      for (const name of expected) raised.add(name);
    },
  };
}

/** Waits until a series of an app's /metrics has grown past `before`; resolves to its value. */
export function grown(url: string, name: string, labels: Record<string, string>, before: number): Promise<number> {
  return eventually(
    async () => {
      const now = (await metricValue(url, name, labels)) ?? 0;
      return now > before ? now : undefined;
    },
    { what: `${name} ${JSON.stringify(labels)} above ${before}`, timeoutMs: 15_000, intervalMs: 100 },
  );
}

/**
 * Monitoring proven on a real Prometheus (Debian's package): it scrapes the running stack with the shipped
 * alert rules while a scripted scenario runs — prices, orders (filled, refused, invalid, one whose reply is
 * lost), a refused subscription, then faults: the venue dropped and refusing the session, the connector
 * stopped, NATS down while an outcome is on its way, a burst of commands faster than the venue's order pace,
 * the venue's REST API throttling a token fetch. At each step exactly the alerts that step should raise are
 * firing, and no other. At the end, every query of every panel of deploy/grafana/dashboards parses and
 * returned data over the scenario (the panels are read from the files: a new panel is covered without
 * touching this test), and every alert either fired in the scenario or is listed in NOT_RAISED with the
 * reason it cannot. The rules are deploy/prometheus/rules/*.yml as shipped, `for:` waits shortened to
 * seconds, and by checked edits (prometheus-harness.ts) the thresholds no scenario can wait for.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, freePort } from '#testing';
import { RestPath } from '#venue-api';
import {
  adminPost,
  askForStream,
  liveQuotes,
  metricSum,
  metricValue,
  sendOrderCommand,
  startConnectorStack,
  storedOutcomes,
  streamRequest,
  subjects,
  type ConnectorStack,
} from '../connector/connector-stack.js';
import { expandGrafanaVariables, panelQueries, readDashboards } from './dashboards.js';
import { startPrometheus, type RunningPrometheus } from './prometheus-harness.js';

/** Alerts this scenario cannot raise, each proven by its promtool test case instead (deploy/prometheus/tests). */
const NOT_RAISED: Record<string, string> = {};

describe('dashboards and alerts on a real Prometheus scraping the running stack', () => {
  let stack: ConnectorStack;
  let prometheus: RunningPrometheus;
  let startedAt: number;
  const raised = new Set<string>();

  /** Waits until exactly `expected` are firing (the others are not), and records them as raised. */
  async function expectFiring(expected: string[], what: string): Promise<void> {
    let last: string[] = [];
    await eventually(
      async () => {
        last = await prometheus.firing();
        return last.join() === [...expected].sort().join() ? true : undefined;
      },
      { what: `${what}: firing ${JSON.stringify(expected)}`, timeoutMs: 20_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; firing at the end: ${JSON.stringify(last)}`);
    });
    for (const name of expected) raised.add(name);
  }

  async function finalOutcome(clientRequestId: string): Promise<string> {
    return eventually(
      async () => {
        // JetStream may not answer for a moment after NATS restarted: ask again
        const stored = await storedOutcomes(stack.jsm, clientRequestId).catch(() => []);
        const finals = stored.filter((o) => o.status !== 'PENDING');
        return finals[0]?.status;
      },
      { what: `final outcome of ${clientRequestId}`, timeoutMs: 15_000, intervalMs: 100 },
    );
  }

  beforeAll(async () => {
    startedAt = Math.floor(Date.now() / 1000);
    stack = await startConnectorStack({
      // a fixed port: Prometheus scrapes the same target after the connector's restart
      // the lost reply is recovered by the venue's redelivery after a reconnect, not by an order-state lookup
      // after the reply timeout: a slow run must not resolve it before the venue-down step is asserted
      env: {
        PRICE_STALE_AFTER_MS: '1000',
        SESSION_HEALTH_GRACE_MS: '1000',
        ORDER_REPLY_TIMEOUT_MS: '120000',
        HTTP_PORT: String(await freePort()),
      },
      // every 10th tick off the contract: frames the connector rejects or accepts with oddities
      venue: { trading: { priceIntervalMs: 100, offContractEveryNTicks: 10 } },
    });
    prometheus = await startPrometheus({
      targets: { connector: new URL(stack.connector.httpUrl).host },
      ruleEdits: [
        {
          file: 'connector.yml',
          from: '(connector_order_oldest_unresolved_seconds) > 120',
          to: '(connector_order_oldest_unresolved_seconds) > 3',
        },
        { file: 'jetstream.yml', from: 'jetstream_consumer_pending[2m]', to: 'jetstream_consumer_pending[4s]' },
      ],
    });
  }, 40_000);

  afterAll(async () => {
    await prometheus?.stop();
    await stack?.stop();
  });

  it('prices and orders flow, a subscription is refused, bad requests are counted: nothing fires', async () => {
    const [q1, q2, q3] = await liveQuotes(stack.strategy, stack.venue, 'prom-a', 3);
    await adminPost(stack.venue, 'faults/ws/reject-quotes', { count: 1, code: 'RFS100019' });
    await sendOrderCommand(stack, { clientRequestId: 'prom-refused', quoteId: q1, side: 'BUY' }, 'prom-refused');
    await sendOrderCommand(stack, { clientRequestId: 'prom-filled-1', quoteId: q2, side: 'BUY' }, 'prom-filled-1');
    await sendOrderCommand(stack, { clientRequestId: 'prom-filled-2', quoteId: q3, side: 'SELL' }, 'prom-filled-2');
    await sendOrderCommand(stack, { clientRequestId: 'prom-invalid', quoteId: 'q', side: 'SIDEWAYS' }, 'prom-invalid');
    expect(await finalOutcome('prom-refused')).toBe('FAILED');
    expect(await finalOutcome('prom-filled-1')).toBe('SUCCESS');
    expect(await finalOutcome('prom-filled-2')).toBe('SUCCESS');
    expect(await finalOutcome('prom-invalid')).toBe('FAILED');

    await adminPost(stack.venue, 'faults/ws/fail-subscribe', { count: 1 });
    // a stream of its own (another size): a new venue subscription, which the venue refuses
    await askForStream(stack.strategy, streamRequest(stack.venue, 'prom-b', { quantity: '0.3', leaseSeconds: 600 }));
    await stack.strategy.request(subjects.streamSubscribe, 'not json', { timeout: 5_000 }).catch(() => undefined);
    await eventually(
      async () =>
        (await metricSum(stack.connector.httpUrl, 'connector_subscribe_failures_total')) > 0 ? true : undefined,
      { what: 'the refused subscription counted' },
    );
    await expectFiring([], 'all well');
  }, 40_000);

  it('an order whose reply is lost stays unresolved: GatewayOrderOutcomeUnresolved', async () => {
    const [quote] = await liveQuotes(stack.strategy, stack.venue, 'prom-a', 1);
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    await sendOrderCommand(stack, { clientRequestId: 'prom-lost', quoteId: quote, side: 'BUY' }, 'prom-lost');
    await expectFiring(['GatewayOrderOutcomeUnresolved'], 'reply lost');
  }, 30_000);

  it('the venue dropped and refusing the session: session down and prices stale (the order still unresolved)', async () => {
    await adminPost(stack.venue, 'faults/token', { count: 100_000 });
    await adminPost(stack.venue, 'faults/ws/drop');
    await expectFiring(
      ['GatewayOrderOutcomeUnresolved', 'GatewayPricesStale', 'GatewayVenueSessionDown'],
      'venue refusing the session',
    );
  }, 30_000);

  it('the venue back: the session reopens, the lost outcome is recovered, everything resolves', async () => {
    const cleared = await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' });
    expect(cleared.ok).toBe(true);
    expect(await finalOutcome('prom-lost')).toBe('SUCCESS');
    await expectFiring([], 'venue back');
  }, 30_000);

  it('the connector stopped: app down; once it is back on its port everything resolves', async () => {
    await stack.restartConnector(() => expectFiring(['GatewayAppDown'], 'connector stopped'));
    await expectFiring([], 'connector back');
  }, 40_000);

  it('NATS down while an order outcome arrives: NATS disconnected, JetStream unreadable, outcome store failing', async () => {
    const [quote] = await liveQuotes(stack.strategy, stack.venue, 'prom-c', 1);
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 1_500 });
    const submitted = await metricValue(stack.connector.httpUrl, 'connector_order_commands_total', {
      result: 'submitted',
    });
    await sendOrderCommand(stack, { clientRequestId: 'prom-in-flight', quoteId: quote, side: 'BUY' }, 'prom-in-flight');
    await eventually(
      async () =>
        (await metricValue(stack.connector.httpUrl, 'connector_order_commands_total', { result: 'submitted' })) !==
        submitted
          ? true
          : undefined,
      { what: 'the order sent to the venue' },
    );
    await stack.restartNats(() =>
      expectFiring(
        ['GatewayJetStreamUnreadable', 'GatewayNatsDisconnected', 'GatewayOrderOutcomeStoreFailing'],
        'NATS down, an outcome to store',
      ),
    );
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 0 });
    expect(await finalOutcome('prom-in-flight')).toBe('SUCCESS');
    // the failures stay in the alert's five-minute window
    await expectFiring(['GatewayOrderOutcomeStoreFailing'], 'NATS back, the outcome stored');
  }, 40_000);

  it('commands arriving faster than the venue order pace (4/s): the consumer lag grows (store failures still in their window)', async () => {
    let sent = 0;
    let sending = true;
    const burst = (async () => {
      while (sending) {
        const id = `prom-burst-${sent++}`;
        await sendOrderCommand(stack, { clientRequestId: id, quoteId: `q-${id}`, side: 'BUY' }, id);
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
    })();
    try {
      await expectFiring(['GatewayConsumerLagGrowing', 'GatewayOrderOutcomeStoreFailing'], 'a burst of commands');
    } finally {
      sending = false;
      await burst;
    }
  }, 40_000);

  it('the venue throttles the token fetch of a reconnect: REST throttled (the session recovers in time)', async () => {
    await adminPost(stack.venue, 'faults/rest', { status: 429, count: 1, path: RestPath.Token });
    await adminPost(stack.venue, 'faults/ws/drop');
    await expectFiring(['GatewayOrderOutcomeStoreFailing', 'GatewayVenueRestThrottled'], 'token fetch throttled');
  }, 30_000);

  it('every dashboard panel query parses and returned data during the scenario', async () => {
    const queries = panelQueries(await readDashboards());
    expect(queries.length).toBeGreaterThan(0);
    const end = Math.ceil(Date.now() / 1000);
    const problems: string[] = [];
    for (const { where, expr } of queries) {
      try {
        const series = await prometheus.queryRange(
          expandGrafanaVariables(expr, prometheus.scrapeSeconds),
          startedAt,
          end,
        );
        if (!series.some((s) => s.values.length > 0)) problems.push(`${where}: no data for ${expr}`);
      } catch (error) {
        problems.push(`${where}: ${String(error)}`);
      }
    }
    expect(problems).toEqual([]);
  }, 30_000);

  it('every alert rule either fired in the scenario or is proven by promtool alone, for a stated reason', async () => {
    const names = await prometheus.alertNames();
    expect(names.length).toBeGreaterThan(0);
    const unaccounted = names.filter((n) => !raised.has(n) && NOT_RAISED[n] === undefined);
    expect(unaccounted).toEqual([]);
    expect(Object.keys(NOT_RAISED).filter((n) => !names.includes(n) || raised.has(n))).toEqual([]);
  });
});

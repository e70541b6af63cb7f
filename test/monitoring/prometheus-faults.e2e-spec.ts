/**
 * The fault scenario on a real Prometheus: the alerts the main scenario (prometheus.e2e-spec.ts) cannot raise,
 * each by the fault an operator would meet — the venue unable to serve one resource to account-sync, a balance
 * the venue moved without a transaction leg, an order's reply lost while the venue's order records cannot be
 * read (and execution restarted into it), the risk positions bucket refusing writes while a fill arrives,
 * account-sync started without its webhook sources, account-sync started while another instance holds the
 * account, a second connector started on the connector's venue session id, a withdrawal the venue carries out
 * and then answers 401 (re-sent once by the REST client: carried out twice), and one it carries out and answers
 * 401 both times (reported REJECTED, then found in its list), a released stream whose unsubscribes the venue drops,
 * the venue's clock a minute behind, and nats-server restarted on an empty store. At each step exactly the alerts that step should raise
 * are firing, and no other; each clears once its fault is gone. Rules as shipped, `for:` waits shortened to
 * seconds and the long thresholds and windows cut by checked edits (prometheus-harness.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kvm } from '@nats-io/kv';
import { BucketName } from '#bus';
import { RiskBucketName, WithdrawalSubjects, type WithdrawalReply, type WithdrawalView } from '#contracts';
import { eventually, freePort } from '#testing';
import { RestPath } from '#venue-api';
import {
  ACCOUNT,
  adminPost,
  askForStream,
  liveQuotes,
  metricSum,
  metricValue,
  nextPrice,
  streamRequest,
  subjects,
} from '../connector/connector-stack.js';
import { finalEvents, place } from '../execution/execution-stack.js';
import { AppProcess } from '../kit/app-process.js';
import { startGatewayStack, type GatewayStack } from './gateway-stack.js';
import { startPrometheus, type RunningPrometheus } from './prometheus-harness.js';
import { grown, RAISED_BY_FAULT_SCENARIO, watchAlerts } from './alert-watch.js';

const STRATEGY = 'prom-faults';

describe('alerts raised by faults, on a real Prometheus scraping the running stack', () => {
  let stack: GatewayStack;
  let prometheus: RunningPrometheus;
  let keys = 0;
  const alerts = watchAlerts(() => prometheus);
  const group = () => stack.venue.seed.defaultGroupUuid;
  const accountUrl = () => stack.accountSync.httpUrl;

  async function restFault(path: string): Promise<void> {
    await adminPost(stack.venue, 'faults/rest', { status: 500, count: 1_000_000, path });
  }
  async function clearRestFaults(): Promise<void> {
    expect((await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' })).ok).toBe(true);
  }

  const storedLegStates = () =>
    metricSum(accountUrl(), 'account_sync_transactions_ingested_total', { result: 'stored' });

  /** A processed deposit: a USD leg whose `balanceAfter` is the balance; both its states stored by account-sync. */
  const withdrawals = new WithdrawalSubjects('gw.v1', ACCOUNT);
  const ask = async (subject: string, body: unknown) =>
    (await stack.strategy.request(subject, JSON.stringify(body), { timeout: 20_000 })).json<
      WithdrawalReply & { withdrawal?: WithdrawalView }
    >();
  /** A fiat withdrawal the venue carries out `processed` times (the send, then the REST client's re-send), answering 401. */
  async function submitAnswered401(processed: number, idempotencyKey: string, amount: string) {
    await adminPost(stack.venue, 'faults/rest', {
      status: 401,
      count: processed,
      path: RestPath.WithdrawalFiat,
      applyThenFail: true,
    });
    return ask(withdrawals.submit, {
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: group(),
      ccy: 'USD',
      amount,
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });
  }

  async function processedDeposit(amount: string): Promise<void> {
    const before = await storedLegStates();
    const leg = (await adminPost(stack.venue, 'deposits', { accountGroupUuid: group(), ccy: 'USD', amount })) as {
      uuid: string;
    };
    await adminPost(stack.venue, `transactions/${leg.uuid}/process`);
    await eventually(async () => ((await storedLegStates()) >= before + 2 ? true : undefined), {
      what: `deposit ${amount} PENDING and PROCESSED stored`,
      timeoutMs: 15_000,
    });
  }

  /** A place request to execution for a live quote (a new idempotency key each time); resolves to the reply. */
  async function placeOnLiveQuote() {
    const [quote] = await liveQuotes(stack.strategy, stack.venue, 'prom-faults', 1);
    return place(stack.strategy, {
      idempotencyKey: `prom-faults-${(keys += 1)}`,
      strategyId: STRATEGY,
      accountGroup: group(),
      side: 'BUY',
      quoteId: quote,
    });
  }

  /** An order placed through execution on a live quote; resolves to its order id. */
  async function placeOrder(): Promise<string> {
    const reply = await placeOnLiveQuote();
    if (!reply.ok) throw new Error(`execution refused the order: ${JSON.stringify(reply.error)}`);
    return reply.orderId;
  }

  beforeAll(async () => {
    stack = await startGatewayStack({
      // a lost reply is published UNKNOWN after 1.5 s: execution then reconciles it from the venue's records
      // a contested session clears 15 s after the last replacement (5 min by default)
      // an unanswered unsubscribe is sent again after 1 s (doubling; 10 s by default): an orphan is told within seconds
      connectorEnv: {
        ORDER_REPLY_TIMEOUT_MS: '1500',
        SESSION_CONTESTED_WINDOW_MS: '15000',
        VENUE_SUBSCRIBE_TIMEOUT_MS: '1000',
      },
      venue: { trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } },
      // every resource read each second: one the venue cannot serve is stale within the edited 5 s threshold
      accountSyncEnv: { SYNC_FAST_INTERVAL_MS: '1000', SYNC_SLOW_INTERVAL_MS: '1000' },
    });
    prometheus = await startPrometheus({
      targets: stack.targets(),
      ruleEdits: [
        { file: 'account-sync.yml', from: '(account_sync_age_seconds) > 900', to: '(account_sync_age_seconds) > 5' },
        { file: 'account-sync.yml', from: '[10m]', to: '[6s]' },
        // a withdrawal carried out twice is alerted for a day
        {
          file: 'account-sync.yml',
          from: 'account_sync_withdrawals_duplicated_total[24h]',
          to: 'account_sync_withdrawals_duplicated_total[6s]',
        },
        {
          file: 'account-sync.yml',
          from: 'account_sync_withdrawals_carried_out_after_rejection_total[24h]',
          to: 'account_sync_withdrawals_carried_out_after_rejection_total[6s]',
        },
        {
          file: 'execution.yml',
          from: '(execution_oldest_unresolved_age_seconds) > 300',
          to: '(execution_oldest_unresolved_age_seconds) > 3',
        },
        { file: 'execution.yml', from: '[5m]', to: '[6s]' },
        {
          file: 'connector.yml',
          from: 'connector_price_subject_records_total{result=~"failed|timed_out"}[10m]',
          to: 'connector_price_subject_records_total{result=~"failed|timed_out"}[6s]',
        },
        // a lost store is alerted for an hour
        { file: 'jetstream.yml', from: 'bus_streams_lost_total[1h]', to: 'bus_streams_lost_total[6s]' },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await stack?.stop();
  });

  it('a quiet start with a deposit booked: every app scraped, nothing fires', async () => {
    await eventually(
      async () => {
        const up = await prometheus.query('up');
        return up.length === 3 && up.every((s) => s.value[1] === '1') ? true : undefined;
      },
      { what: 'the three apps scraped and up', timeoutMs: 15_000 },
    );
    await processedDeposit('40.00');
    await alerts.expectFiring([], 'all well');
  }, 40_000);

  it('the venue cannot serve balances: GatewayAccountSyncFailing and GatewayAccountSyncStale, cleared once it can', async () => {
    await restFault(RestPath.Balances);
    await alerts.expectFiring(['GatewayAccountSyncFailing', 'GatewayAccountSyncStale'], 'balances unreadable', 30_000);
    await clearRestFaults();
    await alerts.expectFiring([], 'balances readable again', 30_000);
  }, 70_000);

  it('a balance moved without a transaction leg: GatewayBalanceDrift until a leg explains the balance', async () => {
    await adminPost(stack.venue, 'faults/balance-drift', { accountGroupUuid: group(), ccy: 'USD', amount: '3.00' });
    await alerts.expectFiring(['GatewayBalanceDrift'], 'balance drift', 30_000);
    await processedDeposit('1.00');
    await alerts.expectFiring([], 'balance explained by its newest leg', 30_000);
  }, 70_000);

  it('a withdrawal the venue carries out, then answers 401 (re-sent once): GatewayWithdrawalDuplicated', async () => {
    const reply = await submitAnswered401(1, 'prom-faults-twice', '1.41');
    expect(reply).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    await grown(accountUrl(), 'account_sync_withdrawals_duplicated_total', {}, 0);
    await alerts.expectFiring(['GatewayWithdrawalDuplicated'], 'a withdrawal carried out twice', 30_000);
    // the runbook's way out: the duplicate cancelled at the venue (here its operator declines it); ours too
    const requestId = reply.withdrawal?.requestId;
    const duplicates = (await ask(withdrawals.get, { requestId })).withdrawal?.duplicates ?? [];
    expect(duplicates).toHaveLength(1);
    for (const uuid of duplicates) await adminPost(stack.venue, `withdrawals/${uuid}/decline`);
    expect(await ask(withdrawals.cancel, { requestId })).toMatchObject({
      ok: true,
      withdrawal: { state: 'CANCELLED' },
    });
    await alerts.expectFiring([], 'the duplicate out of its window', 30_000);
  }, 70_000);

  it('a withdrawal the venue carries out but answers 401 to, send and re-send: GatewayWithdrawalCarriedOutAfterRejection', async () => {
    const reply = await submitAnswered401(2, 'prom-faults-401-done', '1.42');
    expect(reply).toMatchObject({ ok: false, error: { code: 'VENUE_UNAUTHORIZED' } });
    await grown(accountUrl(), 'account_sync_withdrawals_carried_out_after_rejection_total', {}, 0);
    // both rows are its: one followed, the other a duplicate
    await alerts.expectFiring(
      ['GatewayWithdrawalCarriedOutAfterRejection', 'GatewayWithdrawalDuplicated'],
      'a withdrawal reported REJECTED, carried out twice',
      30_000,
    );
    const found = (await ask(withdrawals.get, { requestId: reply.withdrawal?.requestId })).withdrawal;
    expect(found).toMatchObject({
      state: 'PENDING_APPROVAL',
      carriedOutAfterRejection: { venueUuid: found?.venueUuid },
    });
    for (const uuid of found?.duplicates ?? []) await adminPost(stack.venue, `withdrawals/${uuid}/decline`);
    expect(await ask(withdrawals.cancel, { requestId: found?.requestId })).toMatchObject({
      ok: true,
      withdrawal: { state: 'CANCELLED' },
    });
    await alerts.expectFiring([], 'out of their window', 30_000);
  }, 70_000);

  let unresolved = '';

  it("a lost reply while the venue's order records cannot be read: the order unresolved, its reconciliation failing", async () => {
    await restFault(RestPath.OrderState);
    await restFault(RestPath.Trades);
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    unresolved = await placeOrder();
    // the trade list also feeds account-sync's trades: that resource fails and grows stale too
    await alerts.expectFiring(
      [
        'GatewayAccountSyncFailing',
        'GatewayAccountSyncStale',
        'GatewayExecutionOrderUnresolved',
        'GatewayReconciliationFailing',
      ],
      'order of unknown outcome, venue records unreadable',
      30_000,
    );
  }, 40_000);

  it('execution restarted with that order open: start-up reconciliation stuck, new orders refused', async () => {
    await stack.restartExecution();
    await alerts.expectFiring(
      [
        'GatewayAccountSyncFailing',
        'GatewayAccountSyncStale',
        'GatewayExecutionOrderUnresolved',
        'GatewayReconciliationFailing',
        'GatewayStartupReconciliationStuck',
      ],
      'restarted into unreadable venue records',
      30_000,
    );
    // a new order is refused while the open ones are not checked (fail-closed start)
    const refused = await placeOnLiveQuote();
    expect(refused).toMatchObject({ ok: false, error: { code: 'EXECUTION_RECONCILING_UNRESOLVED_ORDERS' } });
  }, 60_000);

  it('the venue readable again: the order resolved from its records, everything clears', async () => {
    await clearRestFaults();
    const events = await finalEvents(stack.js, STRATEGY, unresolved, 30_000);
    expect(events.filter((e) => e.order.final).map((e) => e.order.state)).toEqual(['SUCCESS']);
    await alerts.expectFiring([], 'venue records readable, the order resolved', 30_000);
  }, 90_000);

  it('the positions bucket refuses writes while a fill arrives: GatewayRiskPositionWriteFailing', async () => {
    const bucket = `KV_${RiskBucketName.positions(ACCOUNT)}`;
    const config = (await stack.jsm.streams.info(bucket)).config;
    const failures = (await metricValue(stack.execution.httpUrl, 'execution_risk_position_write_failures_total')) ?? 0;
    await stack.jsm.streams.update(bucket, { ...config, max_msg_size: 1 });
    try {
      const orderId = await placeOrder();
      const events = await finalEvents(stack.js, STRATEGY, orderId);
      expect(events.filter((e) => e.order.final).map((e) => e.order.state)).toEqual(['SUCCESS']);
      await grown(stack.execution.httpUrl, 'execution_risk_position_write_failures_total', {}, failures);
      await alerts.expectFiring(['GatewayRiskPositionWriteFailing'], 'a fill not added to the positions');
    } finally {
      await stack.jsm.streams.update(bucket, { ...config, max_msg_size: -1 });
    }
    await alerts.expectFiring([], 'positions writable, the failure out of its window', 30_000);
  }, 70_000);

  it('account-sync started without its webhook sources: GatewayWebhookSourcesUnloaded until ips.json loads', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}${RestPath.WebhookIps}`;
    await stack.restartAccountSync({ VENUE_WEBHOOK_IPS_URL: nowhere });
    await alerts.expectFiring(['GatewayWebhookSourcesUnloaded'], 'no webhook sources', 30_000);
    await stack.restartAccountSync();
    await grown(accountUrl(), 'account_sync_webhook_ips_version', {}, 0);
    await alerts.expectFiring([], 'webhook sources loaded', 30_000);
  }, 90_000);

  it('another instance holds the account: the restarted account-sync waits, GatewayAccountSyncStandby, until the lease lapses', async () => {
    const leases = await new Kvm(stack.strategy).open(BucketName.accountSyncLeases);
    const elsewhere = () =>
      leases.put(
        ACCOUNT,
        JSON.stringify({ instanceId: 'prom-other', host: 'another-host', pid: 1, renewedAt: new Date().toISOString() }),
      );
    let renewing: NodeJS.Timeout | undefined;
    // a lease short enough for the lapse to be seen within this step (the default is 30 s)
    await stack.restartAccountSync({ ACCOUNT_LEASE_MS: '5000' }, async () => {
      await elsewhere(); // after the clean stop released it: the other instance takes it and renews it
      renewing = setInterval(() => void elsewhere().catch(() => undefined), 500);
    });
    try {
      await alerts.expectFiring(['GatewayAccountSyncStandby'], 'a standby', 30_000);
    } finally {
      clearInterval(renewing);
    }
    await grown(accountUrl(), 'account_sync_lease_taken_total', { reason: 'lapsed' }, 0);
    await alerts.expectFiring([], 'the lease lapsed and taken over', 30_000);
  }, 90_000);

  it("a second connector on the connector's venue session id: GatewayVenueSessionContested until it is stopped", async () => {
    const duplicate = AppProcess.start('connector', {
      ...stack.env,
      HTTP_PORT: String(await freePort()),
      ACCOUNT: 'prom-duplicate',
      VENUE_RECONNECT_INITIAL_MS: '200',
      VENUE_RECONNECT_MAX_MS: '1000',
    });
    // its price streams die at each replacement; the session is open most of the time
    const sideEffects = ['GatewayPricesStale', 'GatewayVenueSessionDown'];
    try {
      await alerts.expectFiring(['GatewayVenueSessionContested'], 'a duel for the session', 40_000, sideEffects);
      const health = await fetch(`${stack.connector.httpUrl}/health`);
      expect(health.status).toBe(503);
      expect(JSON.stringify(await health.json())).toContain('contested');
    } finally {
      await duplicate.stop();
    }
    await alerts.expectFiring([], 'the duplicate stopped, the window passed', 60_000, sideEffects);
    await alerts.expectFiring([], 'the session held alone', 30_000);
  }, 150_000);

  it('the venue drops every unsubscribe (MESSAGE_RATE_LIMITED): GatewayVenueOrphanSubscriptions until one gets through', async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'prom-orphan', { quantity: '0.7' }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live');
    await adminPost(stack.venue, 'faults/ws/rate-limit-frames', { messageType: 'unsubscribe', count: 1_000_000 });
    try {
      const released = await stack.strategy.request(
        subjects.streamRelease,
        JSON.stringify({ subject: reply.subject, requester: 'prom-orphan' }),
      );
      expect(released.json()).toEqual({ ok: true });
      await grown(stack.connector.httpUrl, 'connector_venue_orphan_subscriptions', {}, 0);
      await alerts.expectFiring(['GatewayVenueOrphanSubscriptions'], 'a released subscription streams on', 30_000);
    } finally {
      await adminPost(stack.venue, 'faults/ws/rate-limit-frames', { messageType: 'unsubscribe', count: 0 });
    }
    // the next unsubscribe its prices prompt is answered: the subscription ends
    await eventually(
      async () =>
        (await metricValue(stack.connector.httpUrl, 'connector_venue_unsubscribes_unconfirmed')) === 0 || undefined,
      { what: 'the unsubscribe confirmed by the venue', timeoutMs: 15_000 },
    );
    await alerts.expectFiring([], 'the orphan ended', 30_000);
  }, 70_000);

  it("the venue's clock a minute behind: GatewayVenueClockBehind while its prices arrive late, cleared once it is back", async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'prom-clock', { leaseSeconds: 60 }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    // within the venue's tonce window and a quote's life: prices stay live, only the lag shows (spec-gaps W37)
    await adminPost(stack.venue, 'clock', { skewMs: -60_000 });
    try {
      await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live');
      await grown(stack.connector.httpUrl, 'connector_venue_clock_lag_seconds', {}, 45);
      await alerts.expectFiring(['GatewayVenueClockBehind'], 'the venue clock behind', 30_000);
    } finally {
      await adminPost(stack.venue, 'clock', { skewMs: 0 });
    }
    await alerts.expectFiring([], 'the venue clock back', 30_000);
    await stack.strategy.request(
      subjects.streamRelease,
      JSON.stringify({ subject: reply.subject, requester: 'prom-clock' }),
    );
  }, 70_000);

  it("the price subjects bucket refuses a new stream's record: GatewayPriceSubjectsUnrecorded, its prices out all the same", async () => {
    const bucket = `KV_${BucketName.priceSubjects(ACCOUNT)}`;
    const config = (await stack.jsm.streams.info(bucket)).config;
    const failed =
      (await metricValue(stack.connector.httpUrl, 'connector_price_subject_records_total', { result: 'failed' })) ?? 0;
    await stack.jsm.streams.update(bucket, { ...config, max_msg_size: 1 });
    const request = streamRequest(stack.venue, 'prom-unrecorded', { quantity: '0.9' });
    try {
      const reply = await askForStream(stack.strategy, request);
      if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
      await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live'); // not held back by the failed write
      await grown(stack.connector.httpUrl, 'connector_price_subject_records_total', { result: 'failed' }, failed);
      await alerts.expectFiring(['GatewayPriceSubjectsUnrecorded'], 'a stream whose subject was not recorded');
      await stack.strategy.request(
        subjects.streamRelease,
        JSON.stringify({ subject: reply.subject, requester: 'prom-unrecorded' }),
      );
    } finally {
      await stack.jsm.streams.update(bucket, { ...config, max_msg_size: -1 });
    }
    await alerts.expectFiring([], 'the bucket writable, the failure out of its window', 30_000);
  }, 70_000);

  it("nats-server restarted on an empty store: GatewayNatsStoreLost (every app finds its streams declared afresh); the venue's fiat withdrawal list unreadable meanwhile: GatewayWithdrawalsRestoring until it is", async () => {
    const lost = await metricSum(stack.execution.httpUrl, 'bus_streams_lost_total');
    // account-sync cannot rebuild the withdrawal records NATS lost while the venue cannot serve this list
    await restFault(RestPath.WithdrawalFiatList);
    // while it is down (≈ 3 s) the apps may lose NATS long enough for these, each proven by the main scenario
    const sideEffects = [
      'GatewayNatsDisconnected',
      'GatewayJetStreamUnreadable',
      'GatewayRiskStateUnreadable',
      'GatewayOrderOutcomeStoreFailing',
      'GatewayWebhookStoreFailing',
    ];
    await stack.restartNats(undefined, { emptyStore: true });
    await eventually(
      async () => (await metricSum(stack.execution.httpUrl, 'bus_streams_lost_total')) > lost || undefined,
      { what: 'execution counted its lost streams', timeoutMs: 30_000 },
    );
    await alerts.expectFiring(['GatewayNatsStoreLost'], 'the NATS store lost', 30_000, [
      ...sideEffects,
      'GatewayWithdrawalsRestoring', // raised on its own below (its `for:` may or may not have passed yet)
    ]);
    // its window cut from an hour to seconds: it clears (as shipped it fires for an hour after the last loss); the
    // withdrawal records stay unrestored while the list cannot be read
    await alerts.expectFiring(
      ['GatewayWithdrawalsRestoring'],
      'the loss out of its window, the withdrawal records not restored',
      60_000,
      sideEffects,
    );
    expect(await metricValue(accountUrl(), 'account_sync_withdrawals_restoring_seconds')).toBeGreaterThan(0);
    await clearRestFaults();
    await eventually(
      async () =>
        (await metricValue(accountUrl(), 'account_sync_withdrawals_restoring_seconds')) === 0 ? true : undefined,
      { what: 'the withdrawal records restored once the list can be read', timeoutMs: 15_000 },
    );
    await alerts.expectFiring([], 'NATS back, the withdrawal records restored, nothing else firing', 30_000);
  }, 180_000);

  it('raised every alert it names', async () => {
    const names = await prometheus.alertNames();
    expect(RAISED_BY_FAULT_SCENARIO.filter((n) => !names.includes(n))).toEqual([]);
    expect(RAISED_BY_FAULT_SCENARIO.filter((n) => !alerts.raised.has(n))).toEqual([]);
  });
});

/**
 * The whole gateway on a local three-node JetStream cluster, every app with NATS_REPLICAS=3: the connector
 * in-process, account-sync and one execution instance as child processes, the sandbox venue posting real
 * webhooks. While orders (through execution) and deposits (the venue's webhooks into account-sync) flow, one
 * node is killed and started again, then the node leading execution's order-event stream is killed. Every
 * order has exactly one final outcome, each of its states stored once; the venue executed each order once;
 * every transaction state is stored once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import {
  ExecutionStreamName,
  RiskStreamName,
  StreamName,
  TransactionSubjects,
  WithdrawalSubjects,
  type PlaceOrderReply,
  type TransactionStateChanged,
  type WithdrawalReply,
  type WithdrawalStateChanged,
  type WithdrawalView,
} from '#contracts';
import { AccountLedgerName } from '#bus';
import { JsonLogger, loadConfig } from '#observability';
import {
  CLUSTER_WAIT_MS,
  eventually,
  freePort,
  startNatsCluster,
  type NatsClusterHandle,
  type NatsServerHandle,
} from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startConnector, type RunningConnector } from '../../apps/connector/src/bootstrap.js';
import { ConnectorConfig } from '../../apps/connector/src/config.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { ACCOUNT, connectorEnv, liveQuotes, metricSum } from '../connector/connector-stack.js';
import { ExecutionInstance, exec, orderEvents } from '../execution/execution-stack.js';
import { streamMessages } from '../account-sync/webhooks-stack.js';
import { startAccountSyncProcess, type AccountSyncProcess } from '../monitoring/gateway-stack.js';

const ORDERS = 9;
const DEPOSITS = 9;
const STRATEGY = 'cluster-alpha';
const quiet = new JsonLogger('gateway', 'e2e', (process.env['E2E_LOG_LEVEL'] as 'debug' | undefined) ?? 'error');
const transactionSubjects = new TransactionSubjects('gw.v1', ACCOUNT);
const withdrawalSubjects = new WithdrawalSubjects('gw.v1', ACCOUNT);

describe('the whole gateway on a three-node JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let venue: RunningSandbox;
  let connector: RunningConnector;
  let accountSync: AccountSyncProcess;
  let execution: ExecutionInstance;
  let algo: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    const webhookPort = await freePort();
    venue = await startE2eVenue({
      // quotes live 15 s (the venue's is 10 min): an order whose command was never stored is proven not executed
      // (FAILED) within the test, the venue refusing it had it been sent
      trading: { priceIntervalMs: 50, offContractEveryNTicks: 0, quoteTtlMs: 15_000 },
      webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks/venue`,
      webhookMinIntervalMs: 0,
      webhookBackoffScale: 0.002,
    });
    const nats = { url: cluster.url } as NatsServerHandle;
    connector = await startConnector(
      loadConfig(ConnectorConfig, connectorEnv(nats, venue, { NATS_REPLICAS: '3', ORDER_REPLY_TIMEOUT_MS: '5000' })),
      { logger: quiet },
    );
    const common = {
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      NATS_URL: cluster.url,
      NATS_REPLICAS: '3',
      ACCOUNT,
      VENUE_REST_URL: venue.restBaseUrl,
      VENUE_API_KEY: venue.credentials.primary.apiKey,
      VENUE_API_SECRET: venue.credentials.primary.apiSecret,
      DEFAULT_METRICS: 'false',
    };
    accountSync = await startAccountSyncProcess({
      ...common,
      VENUE_WEBHOOK_IPS_URL: venue.ipsUrl,
      WEBHOOK_PORT: String(webhookPort),
      WEBHOOK_HOST: '127.0.0.1',
      WEBHOOK_IPS_REFRESH_MS: '1000',
      // a webhook the venue gave up on while the cluster elected a leader is read from the list
      SYNC_FAST_INTERVAL_MS: '2000',
      LOG_LEVEL: process.env['E2E_LOG_LEVEL'] ?? 'info',
    });
    execution = await ExecutionInstance.start({
      ...common,
      INSTANCE_ID: 'exec-cluster',
      QUOTE_LIFE_MS: '15000',
      VENUE_CHECK_AFTER_MS: '1000',
      RECONCILE_INITIAL_MS: '300',
      RECONCILE_MAX_MS: '1000',
      NOT_EXECUTED_GRACE_MS: '500',
      LOG_LEVEL: process.env['E2E_LOG_LEVEL'] ?? 'info',
    });
    algo = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    js = jetstream(algo);
    jsm = await jetstreamManager(algo);
  }, 90_000 + CLUSTER_WAIT_MS); // the cluster may wait for another suite's to stop

  afterAll(async () => {
    await execution?.close();
    await accountSync?.close();
    await connector?.close();
    await algo?.close();
    await venue?.close();
    await cluster?.stop();
  });

  /** A place request, asked again with the same idempotency key until it is answered (the same order each time). */
  async function placeOrder(key: string, nextQuote: () => Promise<string>): Promise<string> {
    let quoteId = await nextQuote();
    let quotesTried = 1;
    return eventually(
      async () => {
        const reply = await algo
          .request(
            exec.place,
            JSON.stringify({
              idempotencyKey: quotesTried === 1 ? key : `${key}-q${quotesTried}`,
              strategyId: STRATEGY,
              accountGroup: venue.seed.defaultGroupUuid,
              side: 'BUY',
              quoteId,
            }),
            { timeout: 5_000 },
          )
          .then((m) => m.json<PlaceOrderReply>())
          .catch(() => undefined);
        if (reply === undefined) return undefined;
        if (reply.ok) return reply.orderId;
        // storage unavailable while a leader is elected, or the instance re-checking its open orders with the
        // venue after its connection moved to another node: asked again; any other refusal fails the test
        if (/UNAVAILABLE|TIMEOUT|RECONCILING/.test(reply.error.code)) return undefined;
        // execution's own view of the prices had not got this quote (its connection was moving to another
        // node while the algo's was not): nothing was sent; a fresh quote, under a key of its own, as an algo would
        if (reply.error.code === 'QUOTE_UNKNOWN' && quotesTried < 5) {
          quoteId = await nextQuote();
          quotesTried += 1;
          return undefined;
        }
        throw new Error(`order ${key} refused: ${JSON.stringify(reply.error)}`);
      },
      { what: `order ${key} accepted`, timeoutMs: 40_000, intervalMs: 250 },
    );
  }

  /** What execution says of an order and its latest warnings (for a failure message). */
  async function diagnose(orderId: string): Promise<string> {
    const view = await algo
      .request(exec.get, JSON.stringify({ strategyId: STRATEGY, orderId }), { timeout: 5_000 })
      .then((m) => m.string())
      .catch((error: unknown) => String(error));
    const events = await orderEvents(js, STRATEGY, orderId).catch((error: unknown) => String(error));
    const leaderless: string[] = [];
    for await (const name of jsm.streams.names()) {
      if ((await cluster.streamLeader(name)) === undefined) leaderless.push(name);
    }
    const warnings = execution.process.lines.filter((l) => /"level":"(warn|error)"/.test(l));
    const firstAndLast = [...warnings.slice(0, 12), '…', ...warnings.slice(-4)];
    return `order: ${view}; events: ${JSON.stringify(events)}; streams without a leader: ${leaderless.join(', ')}; execution warnings: ${firstAndLast.join('\n')}`;
  }

  async function deposit(amount: string): Promise<string> {
    const res = await fetch(`${venue.adminUrl}/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountGroupUuid: venue.seed.defaultGroupUuid, ccy: 'USD', amount }),
    });
    if (!res.ok) throw new Error(`deposit: ${res.status}`);
    return ((await res.json()) as { uuid: string }).uuid;
  }

  it('a node killed and back, then the order-event leader killed, while orders and webhooks flow: nothing lost, nothing twice', async () => {
    // a retried test starts from a whole cluster: a node its first attempt left dead is started again
    await cluster.heal();
    const eventStream = ExecutionStreamName.orderEvents(ACCOUNT);
    // keys of this attempt only: a retried test must not meet its first attempt's orders and withdrawal
    const attempt = randomUUID().slice(0, 8);
    const used = new Set<string>();
    /** A live quote not used yet (each quote executes once), fresh for each order (quotes live 15 s here). */
    const freshQuote = async (): Promise<string> => {
      // asked again while the connector's connection moves to another node (no responders for a moment)
      const quote = await eventually(
        async () =>
          (await liveQuotes(algo, venue, 'cluster-gw', 3).catch(() => [] as string[])).find((q) => !used.has(q)),
        { what: 'a fresh live quote', timeoutMs: 30_000, intervalMs: 250 },
      );
      used.add(quote);
      return quote;
    };
    const venueOrdersBefore = await metricSum(venue.restBaseUrl, 'sandbox_orders_total');
    let filled = 0;
    const orderIds: string[] = [];
    const legs: string[] = [];
    let killedLeader = -1;
    const submitted = await algo.request(
      withdrawalSubjects.submit,
      JSON.stringify({
        idempotencyKey: `cluster-withdrawal-${attempt}`,
        kind: 'fiat',
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '10.00',
        bankAccountUuid: venue.seed.bankUsdOk,
      }),
      { timeout: 20_000 },
    );
    const withdrawal = submitted.json<WithdrawalReply & { withdrawal?: WithdrawalView }>().withdrawal;
    expect(withdrawal?.state).toBe('PENDING_APPROVAL');
    for (let i = 0; i < ORDERS; i += 1) {
      if (i === ORDERS / 3) {
        // a node that does not lead the order events: killed, then started again
        const leader = await eventually(() => cluster.streamLeader(eventStream), { what: 'the order-event leader' });
        const other = cluster.nodes.findIndex((n) => n.name !== leader);
        await cluster.kill(other);
        legs.push(await deposit(`${i}.10`));
        orderIds.push(await placeOrder(`cluster-${attempt}-${i}`, freshQuote));
        // the next kill must leave a quorum: every replica of every file stream and bucket caught up first
        await cluster.heal();
        continue;
      }
      if (i === (2 * ORDERS) / 3) {
        const leader = await eventually(() => cluster.streamLeader(eventStream), { what: 'the order-event leader' });
        killedLeader = cluster.indexOf(leader);
        await cluster.kill(killedLeader);
        const elected = await eventually(() => cluster.streamLeader(eventStream), {
          what: 'a new order-event leader',
          timeoutMs: 30_000,
          intervalMs: 250,
        });
        expect(elected).not.toBe(leader);
      }
      legs.push(await deposit(`${i}.10`));
      orderIds.push(await placeOrder(`cluster-${attempt}-${i}`, freshQuote));
    }
    for (let i = legs.length; i < DEPOSITS; i += 1) legs.push(await deposit(`${i}.20`));
    // the killed leader's node comes back (as an operator would start it again): nothing may be stored twice
    await cluster.restart(killedLeader);

    for (const orderId of orderIds) {
      const events = await eventually(
        async () => {
          const stored = await orderEvents(js, STRATEGY, orderId).catch(() => undefined);
          return stored?.some((e) => e.order.final) ? stored : undefined;
        },
        { what: `the final outcome of ${orderId}`, timeoutMs: 60_000, intervalMs: 250 },
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; ${await diagnose(orderId)}`);
      });
      const states = events.map((e) => e.order.state);
      expect(events.filter((e) => e.order.final)).toHaveLength(1);
      if (states.includes('SUCCESS')) filled += 1;
      expect(new Set(states).size).toBe(states.length); // each state stored once
    }
    // no order reached the venue twice (sandbox_orders_total counts a PENDING and a final per order): every
    // filled one once, and an order whose command was never stored (FAILED, not executed) not at all
    const venueOrders = (await metricSum(venue.restBaseUrl, 'sandbox_orders_total')) - venueOrdersBefore;
    expect(venueOrders).toBeGreaterThanOrEqual(2 * filled);
    expect(venueOrders).toBeLessThanOrEqual(2 * ORDERS);

    const ledger = AccountLedgerName.transactions(ACCOUNT);
    for (const uuid of legs) {
      const stored = await eventually(
        async () => {
          const found = await streamMessages<TransactionStateChanged>(
            jsm,
            ledger,
            transactionSubjects.changed(uuid),
          ).catch(() => undefined);
          return found !== undefined && found.length > 0 ? found : undefined;
        },
        { what: `the transaction ${uuid} (deposit ${legs.indexOf(uuid)}) stored`, timeoutMs: 60_000, intervalMs: 250 },
      ).catch(async (error: unknown) => {
        const page = await fetch(`${accountSync.httpUrl}/metrics`)
          .then((r) => r.text())
          .catch(() => `(account-sync not answering) ${accountSync.process.lines.slice(-8).join('\n')}`);
        const metrics = page.startsWith('(account-sync not answering)')
          ? [page]
          : page
              .split('\n')
              .filter((l) =>
                /^account_sync_(webhooks_total|transactions_ingested_total|runs_total\{resource="transactions")/.test(
                  l,
                ),
              )
              .filter((l) => !l.endsWith(' 0') && !l.startsWith('#'));
        const problems = new Set(
          accountSync.process.lines
            .filter((l) => /"level":"(warn|error)"/.test(l))
            .map((l) => l.replace(/"time":"[^"]*",?/, '').slice(0, 400)),
        );
        throw new Error(
          `${String(error)}; account-sync: ${metrics.join('; ')}; warnings: ${[...problems].slice(-12).join('\n')}`,
        );
      });
      const states = stored.map((e) => e.state);
      expect(new Set(states).size).toBe(states.length); // each transaction state stored once
    }
    // read as the transactions above: the restarted node may still be catching up (a read may time out)
    const withdrawalEvents = await eventually(
      () =>
        streamMessages<WithdrawalStateChanged>(
          jsm,
          AccountLedgerName.withdrawalEvents(ACCOUNT),
          withdrawalSubjects.changed(withdrawal?.requestId ?? ''),
        ).catch(() => undefined),
      { what: 'the withdrawal events read', timeoutMs: 30_000, intervalMs: 250 },
    );
    const withdrawalStates = withdrawalEvents.map((e) => e.withdrawal.state);
    expect(withdrawalStates).toEqual(['SUBMITTING', 'PENDING_APPROVAL']);
  }, 180_000);

  it('every durable stream and bucket the gateway made is replicated on three nodes; the short-lived ones are memory R1', async () => {
    const notReplicated: string[] = [];
    const memory: string[] = [];
    let durable = 0;
    for await (const info of jsm.streams.list()) {
      if (info.config.storage === StorageType.Memory) {
        memory.push(info.config.name);
        continue;
      }
      durable += 1;
      if (info.config.num_replicas !== 3) notReplicated.push(`${info.config.name} R${info.config.num_replicas}`);
    }
    expect(durable).toBeGreaterThan(10);
    expect(notReplicated).toEqual([]);
    // memory R1, and only these: the connector's last-value streams (prices, status) and the execution's risk book
    // window (minutes of best-effort data) — one lost with its node is declared again at the next topology check
    const shortLived = [StreamName.connectorStatus(ACCOUNT), StreamName.prices(ACCOUNT), RiskStreamName.book(ACCOUNT)];
    expect(memory.filter((name) => !shortLived.includes(name))).toEqual([]);
  });
});

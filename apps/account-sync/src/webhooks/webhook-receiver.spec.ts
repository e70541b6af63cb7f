import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountLedgerStreams, AccountLedgerName, BusConnection, BusMetrics, BusStreams, SubjectLedger } from '#bus';
import { TransactionSubjects } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import { TransactionLedger, type TransactionStore } from '../transactions/transaction-ledger.js';
import { TransactionMetrics } from '../transactions/transaction-metrics.js';
import { CidrSet } from './cidr-set.js';
import type { SourceVerdict } from './source-list-machine.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookReceiver, type WebhookSources } from './webhook-receiver.js';

/** The real stream store, with one injected fault: appends wait at a gate until the test opens it (NATS slow). */
class GatedAppends implements TransactionStore {
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  constructor(private readonly inner: TransactionStore) {}
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  async append(subject: string, json: string, msgId: string, expectedLastSeq: number) {
    await this.gate;
    return this.inner.append(subject, json, msgId, expectedLastSeq);
  }
  last<T>(subject: string) {
    return this.inner.last<T>(subject);
  }
}

const silent = new JsonLogger('webhook-test', 'test', 'error', { write: () => undefined });

const receiverOptions = {
  port: 0,
  host: '127.0.0.1',
  path: '/hooks/venue',
  maxBodyBytes: 4_096,
  trustedProxies: CidrSet.empty(),
  answerDeadlineMs: 8_000,
};

function notification(uuid: string, state: string, amount = '12345678901234567.123456789'): string {
  // amounts are JSON numbers (§2.9): written raw so that a lossy parse would show
  return `{"transactionClass":"CASH","uuid":"${uuid}","userUuid":"u1","amount":${amount},"fee":0,"balanceBefore":1,"balanceAfter":2,"ccy":"USD","transactionState":"${state}","transactionType":"DEPOSIT","received":1700000000000,"processed":1700000000001,"timestampMillis":1700000000002,"displayTitle":null,"displayDescription":null,"paymentTransferType":null,"customRef":"r","beneficiaryUuid":null}`;
}

describe('WebhookReceiver (real HTTP, real nats-server)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let receiver: WebhookReceiver;
  let ledger: TransactionLedger;
  let url: string;
  let registry: MetricsRegistry;
  const sources: WebhookSources & { list: CidrSet; ready: boolean; outside: SourceVerdict } = {
    list: CidrSet.parse(['127.0.0.1/32']).set,
    ready: true,
    outside: 'refused',
    admit(address: string) {
      if (!this.ready) return 'unready';
      return this.list.contains(address) ? 'allowed' : this.outside;
    },
  };

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  async function count(
    result: string,
    name = 'account_sync_webhooks_total',
    label = 'result',
    from: MetricsRegistry = registry,
  ): Promise<number> {
    const metric = await from.getSingleMetric(name)?.get();
    return metric?.values.find((v) => v.labels[label] === result)?.value ?? 0;
  }

  beforeAll(async () => {
    server = await startNatsServer();
    registry = new MetricsRegistry('t', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 't', reconnectTimeWaitMs: 100 },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    const streams = new BusStreams(connection, silent);
    for (const definition of accountLedgerStreams('gw.v1', 'a', { duplicateWindowMs: 60_000, retentionMs: 0 })) {
      await streams.ensureStream(definition);
    }
    ledger = new TransactionLedger(
      new SubjectLedger(connection, AccountLedgerName.transactions('a')),
      new TransactionSubjects('gw.v1', 'a'),
      new TransactionMetrics(registry),
      silent,
    );
    receiver = new WebhookReceiver(receiverOptions, sources, ledger, new WebhookMetrics(registry), silent);
    url = await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await connection.close();
    await server.stop();
  });

  it('stores a notification before answering 200, losslessly, and answers a repeat 200 as a duplicate', async () => {
    const first = await post(notification('w-1', 'PENDING'));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ result: 'stored' });
    const stored = await ledger.current('w-1');
    expect(stored?.leg.amount).toBe('12345678901234567.123456789');
    const again = await post(notification('w-1', 'PENDING'));
    expect(await again.json()).toEqual({ result: 'duplicate' });
    expect((await post(notification('w-1', 'PROCESSED'))).status).toBe(200);
    expect(await (await post(notification('w-1', 'PENDING'))).json()).toEqual({ result: 'stale' });
    expect((await ledger.current('w-1'))?.state).toBe('PROCESSED');
  });

  it('stores a negative amount as written (§2.9 gives amounts no sign rule; direction is transactionType: WH9)', async () => {
    const debit = notification('w-neg', 'PENDING', '-250.25').replace('"DEPOSIT"', '"WITHDRAWAL"');
    const answer = await post(debit);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ result: 'stored' });
    expect((await ledger.current('w-neg'))?.leg).toMatchObject({ amount: '-250.25', transactionType: 'WITHDRAWAL' });
  });

  it('answers 400 to a malformed body, counted, with a bounded reason that does not echo the body', async () => {
    const before = await count('invalid');
    const notJson = await post('{"uuid": ' + 'A'.repeat(3_000));
    expect(notJson.status).toBe(400);
    const text = await notJson.text();
    expect(text.length).toBeLessThan(400);
    expect(text).not.toContain('AAAA');
    const noUuid = await post(notification('w-2', 'PENDING').replace('"uuid":"w-2",', ''));
    expect(noUuid.status).toBe(400);
    expect(await noUuid.text()).toContain('notification.uuid');
    const uncarriable = await post(notification('u'.repeat(1_500), 'PENDING'));
    expect(uncarriable.status).toBe(400);
    expect(await uncarriable.text()).not.toContain('uuuu');
    expect(await count('invalid')).toBe(before + 3);
  });

  it('answers 503 (retried, never a 4xx) to a transaction the ledger cannot hold yet: a state outside §3.3', async () => {
    const before = await count('unusable');
    const response = await post(notification('w-3', 'ON_HOLD'));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: 'notification not usable yet: notification.transactionState: unexpected value "ON_HOLD"',
    });
    expect(await count('unusable')).toBe(before + 1);
    expect(await ledger.current('w-3')).toBeUndefined();
  });

  it('stores a notification with unusual optional fields, a new class and a long uuid (§2.9 says only "string")', async () => {
    const uuid = `w-4.${'9'.repeat(500)}`;
    const odd = notification(uuid, 'PENDING')
      .replace('"transactionClass":"CASH"', '"transactionClass":"FEE"')
      .replace('"displayTitle":null', '"displayTitle":{"en":"Fee"}')
      .replace('"received":1700000000000', '"received":"yesterday"')
      .replace('"fee":0', '"fee":"n/a"');
    const response = await post(odd);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: 'stored' });
    const stored = await ledger.current(uuid);
    expect(stored?.leg).toMatchObject({
      uuid,
      transactionClass: 'FEE',
      displayTitle: null,
      amount: '12345678901234567.123456789',
    });
    expect(stored?.leg).not.toHaveProperty('received');
    expect(stored?.leg).not.toHaveProperty('fee');
  });

  it('answers 413 to a body over the bound', async () => {
    const response = await post(`{"pad":"${'x'.repeat(10_000)}"}`);
    expect(response.status).toBe(413);
  });

  it('refuses an unlisted source with 403, and answers 503 (retried) while no list is loaded', async () => {
    sources.list = CidrSet.parse(['203.0.113.0/24']).set;
    const refused = await post(notification('w-3', 'PENDING'));
    expect(refused.status).toBe(403);
    expect(await ledger.current('w-3')).toBeUndefined();
    sources.ready = false;
    expect((await post(notification('w-3', 'PENDING'))).status).toBe(503);
    sources.ready = true;
    sources.list = CidrSet.parse(['127.0.0.1/32']).set;
    expect((await post(notification('w-3', 'PENDING'))).status).toBe(200);
  });

  it('answers 503 (retried, not 403) to an unlisted source while the list may be ours to blame', async () => {
    sources.list = CidrSet.parse(['203.0.113.0/24']).set;
    sources.outside = 'retry'; // a refresh it asked for is running, or ips.json announces a change
    try {
      const before = await count('unconfirmed_source');
      const answer = await post(notification('w-7', 'PENDING'));
      expect(answer.status).toBe(503);
      expect(await count('unconfirmed_source')).toBe(before + 1);
      expect(await ledger.current('w-7')).toBeUndefined();
    } finally {
      sources.outside = 'refused';
      sources.list = CidrSet.parse(['127.0.0.1/32']).set;
    }
  });

  it('reads X-Forwarded-For only from a configured trusted proxy', async () => {
    sources.list = CidrSet.parse(['203.0.113.0/24']).set;
    // no trusted proxy: the header is the sender's word, ignored
    expect((await post(notification('w-6', 'PENDING'), { 'x-forwarded-for': '203.0.113.5' })).status).toBe(403);
    const behindProxy = new WebhookReceiver(
      {
        port: 0,
        host: '127.0.0.1',
        path: '/hooks/venue',
        maxBodyBytes: 4_096,
        trustedProxies: CidrSet.parse(['127.0.0.1/32']).set,
        answerDeadlineMs: 8_000,
      },
      sources,
      ledger,
      new WebhookMetrics(new MetricsRegistry('p', { defaultMetrics: false })),
      silent,
    );
    const proxied = await behindProxy.start();
    try {
      const via = (forwarded: string) =>
        fetch(proxied, {
          method: 'POST',
          body: notification('w-6', 'PENDING'),
          headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
        });
      expect((await via('198.51.100.1')).status).toBe(403);
      expect((await via('198.51.100.1, 203.0.113.5')).status).toBe(200);
    } finally {
      await behindProxy.stop();
      sources.list = CidrSet.parse(['127.0.0.1/32']).set;
    }
  });

  it('answers 503 once its deadline passes (a slow store), stores in the background, and a retry is a duplicate', async () => {
    const store = new GatedAppends(new SubjectLedger(connection, AccountLedgerName.transactions('a')));
    const late = new MetricsRegistry('late', { defaultMetrics: false });
    const slowLedger = new TransactionLedger(
      store,
      new TransactionSubjects('gw.v1', 'a'),
      new TransactionMetrics(late),
      silent,
    );
    const hurried = new WebhookReceiver(
      {
        port: 0,
        host: '127.0.0.1',
        path: '/hooks/venue',
        maxBodyBytes: 4_096,
        trustedProxies: CidrSet.empty(),
        answerDeadlineMs: 200,
      },
      sources,
      slowLedger,
      new WebhookMetrics(late),
      silent,
    );
    const hurriedUrl = await hurried.start();
    const send = () => fetch(hurriedUrl, { method: 'POST', body: notification('w-slow', 'PENDING') });

    try {
      store.hold();
      const first = await send();
      expect(first.status).toBe(503);
      expect(await first.json()).toEqual({ error: 'not stored within the answer deadline; retry later' });
      // the venue's retry while the first store is still held: queued behind it (one mailbox per uuid), 503 too
      expect((await send()).status).toBe(503);
      expect(await count('store_deadline', undefined, undefined, late)).toBe(2);
      expect(await ledger.current('w-slow')).toBeUndefined();
      store.release();
      await slowLedger.drained();
      expect((await ledger.current('w-slow'))?.state).toBe('PENDING');
      const retry = await send();
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual({ result: 'duplicate' });
      // idempotent per (uuid, state): three deliveries, one of them finished after its answer, one state stored
      expect(await count('PENDING', 'account_sync_transaction_states_total', 'state', late)).toBe(1);
    } finally {
      store.release();
      await hurried.stop();
    }
  });

  it('at stop, a request on an open keep-alive connection is answered 503 and the connection closed, never reset', async () => {
    // outside tester: 10 of 300 webhooks on keep-alive connections were reset unanswered at SIGTERM
    const closing = new WebhookReceiver(
      receiverOptions,
      sources,
      ledger,
      new WebhookMetrics(new MetricsRegistry('t2', { defaultMetrics: false })),
      silent,
    );
    const closingUrl = new URL(await closing.start());
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const send = (uuid: string) =>
      new Promise<string>((resolve) => {
        const request = httpRequest(
          { host: closingUrl.hostname, port: closingUrl.port, path: closingUrl.pathname, method: 'POST', agent },
          (response) => {
            response.resume();
            response.on('end', () => resolve(`${response.statusCode} ${response.headers.connection}`));
          },
        );
        request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        request.end(notification(uuid, 'PENDING'));
      });
    try {
      // four connections kept alive, idle
      expect(await Promise.all([1, 2, 3, 4].map((i) => send(`ka-${i}`)))).toEqual(Array(4).fill('200 keep-alive'));
      const stopped = closing.stop();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // the senders write on them after the stop began: answered, told to close
      expect(await Promise.all([1, 2, 3, 4].map((i) => send(`ka-late-${i}`)))).toEqual(Array(4).fill('503 close'));
      await stopped;
    } finally {
      agent.destroy();
      await closing.stop();
    }
  });

  it('404 on another path, 405 on another method', async () => {
    expect((await fetch(url.replace('/hooks/venue', '/other'), { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(url)).status).toBe(405);
  });

  it('answers 503 when it cannot store (NATS down), so the venue retries; stores again once NATS is back', async () => {
    await server.stop({ keepStore: true });
    const response = await post(notification('w-4', 'PENDING'));
    expect(response.status).toBe(503);
    expect((await ledger.health()).up).toBe(false);
    server = await startNatsServer({ port: server.port, storeDir: server.storeDir });
    // the venue's retries, until one is stored
    await waitFor(async () => (await post(notification('w-4', 'PENDING'))).status === 200, 'a retry stored', 20_000);
    expect((await ledger.current('w-4'))?.state).toBe('PENDING');
    expect((await ledger.health()).up).toBe(true);
  }, 30_000);
});

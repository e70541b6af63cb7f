/**
 * The SDK's change feeds — `account.changes$(resource)`, `account.transactionChanges$()`,
 * `withdrawals.changes$()` — across a lost connection and a nats-server restart. The streams are the
 * account-sync app's own definitions (libs/bus) on a real nats-server with a file store; events are published
 * as the app publishes them. The client reaches the server through a TCP relay the test cuts: events are
 * published while the client is cut off, while the server restarts (its consumers gone with it), and after
 * the client is back. Each feed delivers every event published after it started, once, in order — and none
 * from before it started.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import type { Observable, Subscription } from 'rxjs';
import { GatewayClient } from '#client';
import { accountLedgerStreams, accountStateStreams } from '#bus';
import { AccountSyncSubjects, Subjects, TransactionSubjects, WithdrawalSubjects } from '#contracts';
import {
  eventually,
  restartNatsServer,
  startNatsServer,
  startTcpRelay,
  type NatsServerHandle,
  type TcpRelay,
} from '#testing';

const ACCOUNT = 'feeds';
const state = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));
const transactions = new TransactionSubjects('gw.v1', ACCOUNT);
const withdrawals = new WithdrawalSubjects('gw.v1', ACCOUNT);

/** One feed under test: how an event with id `n` is published, and how the id is read back. */
interface Feed {
  name: string;
  open(client: GatewayClient): Observable<unknown>;
  subject(n: string): string;
  event(n: string): Record<string, unknown>;
  idOf(event: unknown): string;
}

const FEEDS: Feed[] = [
  {
    name: 'balance changes',
    open: (client) => client.account.changes$('balance'),
    subject: () => state.stateChanged('balance', 'changed', 'g.USD'),
    event: (n) => ({ v: 1, resource: 'balance', key: 'g.USD', change: 'changed', version: n, seenAt: 0 }),
    idOf: (e) => String((e as { version: string }).version),
  },
  {
    name: 'trade changes (history stream)',
    open: (client) => client.account.changes$('trade'),
    subject: (n) => state.stateChanged('trade', 'created', `trade-${n}`),
    event: (n) => ({ v: 1, resource: 'trade', key: `trade-${n}`, change: 'created', version: 1, seenAt: 0 }),
    idOf: (e) => (e as { key: string }).key.replace('trade-', ''),
  },
  {
    name: 'transaction changes',
    open: (client) => client.account.transactionChanges$(),
    subject: (n) => transactions.changed(`tx-${n}`),
    event: (n) => ({ v: 1, uuid: `tx-${n}`, state: 'PENDING', previousState: null }),
    idOf: (e) => (e as { uuid: string }).uuid.replace('tx-', ''),
  },
  {
    name: 'withdrawal changes',
    open: (client) => client.withdrawals.changes$(),
    subject: (n) => withdrawals.changed(`w${n}`),
    event: (n) => ({ v: 1, previousState: null, withdrawal: { requestId: `w${n}`, state: 'SUBMITTING' } }),
    idOf: (e) => (e as { withdrawal: { requestId: string } }).withdrawal.requestId.slice(1),
  },
];

describe('SDK change feeds across a lost connection and a nats-server restart', () => {
  let nats: NatsServerHandle;
  let storeDir: string;
  let relay: TcpRelay;
  let app: NatsConnection;
  let client: GatewayClient;
  const seen = new Map<string, string[]>(FEEDS.map((f) => [f.name, []]));
  const subscriptions: Subscription[] = [];

  const publish = (feed: Feed, n: string) =>
    // as the app does: a Nats-Msg-Id, and again after a failure (the server may be restarting)
    eventually(
      () =>
        jetstream(app)
          .publish(feed.subject(n), JSON.stringify(feed.event(n)), { msgID: `${feed.name}:${n}`, timeout: 1_000 })
          .then(
            () => true,
            () => undefined,
          ),
      { what: `${feed.name} ${n} stored`, timeoutMs: 20_000 },
    );
  const publishAll = async (n: string) => {
    for (const feed of FEEDS) await publish(feed, n);
  };
  /** Lets the client through again and waits until it has reconnected. */
  const mended = async () => {
    const reconnected = (async () => {
      for await (const status of client.context.nc.status()) if (status.type === 'reconnect') return;
    })();
    relay.mend();
    await reconnected;
  };
  /** The account-sync app's streams, as it declares them. */
  const declareStreams = async () => {
    const jsm = await jetstreamManager(app);
    const settings = { duplicateWindowMs: 120_000, retentionMs: 0 };
    for (const definition of [
      ...accountStateStreams(state, ACCOUNT, settings),
      ...accountLedgerStreams('gw.v1', ACCOUNT, settings),
    ]) {
      await jsm.streams.add({
        name: definition.name,
        subjects: definition.subjects,
        storage: StorageType.File,
        ...(definition.maxMsgsPerSubject !== undefined ? { max_msgs_per_subject: definition.maxMsgsPerSubject } : {}),
      });
    }
  };
  const events = (feed: Feed) => (seen.get(feed.name) ?? []).filter((id) => !id.startsWith('probe'));

  beforeAll(async () => {
    nats = await startNatsServer();
    storeDir = nats.storeDir;
    relay = await startTcpRelay(nats.port);
    app = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    await declareStreams();
    client = await GatewayClient.connect({ servers: relay.url, account: ACCOUNT });
  });
  afterAll(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await client?.close();
    await app?.close();
    await relay?.close();
    await nats?.stop();
    if (storeDir !== undefined) await rm(storeDir, { recursive: true, force: true });
  });

  it('every event published after subscribing arrives once, in order, through a cut and a restart', async () => {
    await publishAll('before'); // stored before anyone subscribed: not a change "from now on"
    for (const feed of FEEDS) {
      subscriptions.push(feed.open(client).subscribe((e) => seen.get(feed.name)?.push(feed.idOf(e))));
    }
    // a feed starts asynchronously: probe until each one delivers
    let probe = 0;
    await eventually(
      async () => {
        probe += 1;
        for (const feed of FEEDS) if ((seen.get(feed.name) ?? []).length === 0) await publish(feed, `probe${probe}`);
        return FEEDS.every((f) => (seen.get(f.name) ?? []).length > 0) ? true : undefined;
      },
      { what: 'every feed delivering', intervalMs: 100 },
    );

    await publishAll('1');
    await eventually(() => (FEEDS.every((f) => events(f).includes('1')) ? true : undefined), {
      what: 'event 1 at every feed',
    });

    relay.cut(); // the client loses its connection; the server runs on
    await publishAll('2');
    nats = await restartNatsServer(nats); // the server restarts on its store: the feeds' consumers are gone
    await publishAll('3');
    await mended();
    await publishAll('4');

    relay.cut(); // cut off again, the server running on: the feeds' consumers outlive the outage
    await publishAll('5');
    await mended();
    await publishAll('6');
    await eventually(() => (FEEDS.every((f) => events(f).includes('6')) ? true : undefined), {
      what: 'event 6 at every feed',
      timeoutMs: 60_000,
    });
    // anything delivered twice would have come before 6 (in order): the lists are whole and single
    for (const feed of FEEDS) {
      expect({ feed: feed.name, ids: events(feed) }).toEqual({ feed: feed.name, ids: ['1', '2', '3', '4', '5', '6'] });
    }

    // the server comes back with an empty store (streams created anew, sequences from 1): nothing is skipped
    const { port } = nats;
    await nats.stop();
    nats = await startNatsServer({ port });
    await eventually(
      () =>
        declareStreams().then(
          () => true,
          () => undefined,
        ),
      {
        what: 'the streams declared again on the new server (the app reconnected)',
        timeoutMs: 20_000,
      },
    );
    await publishAll('7');
    await publishAll('8');
    await eventually(() => (FEEDS.every((f) => events(f).includes('8')) ? true : undefined), {
      what: 'event 8 at every feed',
      timeoutMs: 60_000,
    });
    for (const feed of FEEDS) {
      expect({ feed: feed.name, ids: events(feed).slice(6) }).toEqual({ feed: feed.name, ids: ['7', '8'] });
    }
  }, 120_000);

  it('unsubscribing stops and deletes the consumers; closing the client completes a feed', async () => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
    const jsm = await jetstreamManager(app);
    const names = [
      ...accountStateStreams(state, ACCOUNT, { duplicateWindowMs: 0, retentionMs: 0 }),
      ...accountLedgerStreams('gw.v1', ACCOUNT, { duplicateWindowMs: 0, retentionMs: 0 }),
    ].map((d) => d.name);
    const consumers = async () => {
      let count = 0;
      for (const name of names) count += (await jsm.streams.info(name)).state.consumer_count;
      return count;
    };
    // deleted at once; one whose delete went unanswered (a loaded server) goes after its inactivity threshold
    await eventually(async () => ((await consumers()) === 0 ? true : undefined), {
      what: 'no consumer left',
      timeoutMs: 30_000,
    });

    const closing = await GatewayClient.connect({ servers: nats.url, account: ACCOUNT });
    const ended = new Promise<string>((resolve) =>
      closing.withdrawals.changes$().subscribe({ complete: () => resolve('complete'), error: () => resolve('error') }),
    );
    await eventually(async () => ((await consumers()) === 1 ? true : undefined), { what: 'the feed started' });
    await closing.close();
    expect(await ended).toBe('complete');
  });
});

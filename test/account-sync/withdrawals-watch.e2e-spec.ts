/**
 * What the withdrawal desk owes treasury after the fact, against the sandbox venue over HTTP and a real
 * nats-server; the faults are injected between the desk and them:
 *  - a request taken as NOT_FOUND (unknown submit, absent from the lists for the settle time) is still looked
 *    for: when the venue's list shows it later, it moves to the state shown (it was created after all);
 *  - a state stored but not published when the process ended (a final one too) is published at the next start,
 *    and one already published is not published again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '#actors';
import { AccountLedgerName, BusConnection, BusKv, BusMetrics, BusPublisher, BusStreams, type KvBucket } from '#bus';
import {
  WithdrawalListRequest,
  WithdrawalSubjects,
  WithdrawalSubmitRequest,
  type WithdrawalRequestState,
  type WithdrawalStateChanged,
} from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { TonceSource, VenueRestClient, type WithdrawalRequest } from '#venue-api';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { WithdrawalDesk, type WithdrawalEvents } from '../../apps/account-sync/src/withdrawals/withdrawal-desk.js';
import { legacyRequestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import { WithdrawalMetrics } from '../../apps/account-sync/src/withdrawals/withdrawal-metrics.js';
import { startE2eVenue } from '../kit/e2e-venue.js';

const silent = new JsonLogger('desk-test', 'test', 'error', { write: () => undefined });
const ACCOUNT = 'watch';
const subjects = new WithdrawalSubjects('gw.v1', ACCOUNT);
const STREAM = AccountLedgerName.withdrawalEvents(ACCOUNT);

describe('withdrawal desk: NOT_FOUND is watched, and a state stored but not published is published at start', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let connection: BusConnection;
  let bucket: KvBucket;
  let client: VenueRestClient;
  let publisher: BusPublisher;
  let streams: BusStreams;
  const desks: WithdrawalDesk[] = [];
  /** Faults: the submit's answer lost (the request is created), lists that do not show it yet, no publishing. */
  const faults = {
    loseSubmitAnswer: false,
    hideFromLists: false,
    publishDown: false,
    writesDown: false,
    /** The venue's fiat list as 2,000 rows with 1,000-character comments (other members' requests). */
    hugeList: false,
    /** A crypto submit's 2xx naming no uuid (§4.9 does not show the answer; WD7). */
    cryptoAnswerWithoutUuid: false,
  };

  const venueWithFaults = () => ({
    submitFiatWithdrawal: async (request: Parameters<VenueRestClient['submitFiatWithdrawal']>[0]) => {
      const answer = await client.submitFiatWithdrawal(request);
      if (faults.loseSubmitAnswer) throw new Error('injected: socket hang up after the request was sent');
      return answer;
    },
    submitCryptoWithdrawal: async (request: Parameters<VenueRestClient['submitCryptoWithdrawal']>[0]) => {
      const answer = await client.submitCryptoWithdrawal(request);
      return faults.cryptoAnswerWithoutUuid ? {} : answer;
    },
    listFiatWithdrawals: async (): Promise<WithdrawalRequest[]> =>
      faults.hugeList
        ? Array.from({ length: 2_000 }, (_, i) => ({
            uuid: `row-${i}`,
            state: 'PENDING' as const,
            clientComment: 'c'.repeat(1_000),
          }))
        : faults.hideFromLists
          ? []
          : client.listFiatWithdrawals(),
    listCryptoWithdrawals: async (): Promise<WithdrawalRequest[]> =>
      faults.hideFromLists ? [] : client.listCryptoWithdrawals(),
    cancelFiatWithdrawal: (uuid: string, group: string) => client.cancelFiatWithdrawal(uuid, group),
    cancelCryptoWithdrawal: (uuid: string, group: string) => client.cancelCryptoWithdrawal(uuid, group),
    getAccountDetails: (query?: Parameters<VenueRestClient['getAccountDetails']>[0]) => client.getAccountDetails(query),
  });
  const events: WithdrawalEvents = {
    publish: async (subject, event, msgId) => {
      if (faults.publishDown) throw new Error('injected: JetStream unavailable');
      await publisher.publishDurable(subject, event, { msgId, kind: 'acct.withdrawal.changed', attempts: 1 });
    },
    lastPublished: async (subject) =>
      (await streams.lastMessage<WithdrawalStateChanged>(STREAM, subject))?.value.withdrawal.state,
  };
  /** Another gateway account's desk (its own bucket and subjects), on the same venue user and group. */
  const startOtherAccountDesk = async (account: string) => {
    const own = await new BusKv(connection).bucket(AccountLedgerName.withdrawalRequests(account));
    const desk = new WithdrawalDesk(
      venueWithFaults(),
      own,
      { publish: async () => undefined, lastPublished: async () => undefined },
      new WithdrawalSubjects('gw.v1', account),
      new WithdrawalMetrics(new MetricsRegistry('o', { defaultMetrics: false })),
      systemClock,
      silent,
      { pollMs: 60_000, unknownSettleMs: 500, stuckAfterMs: 60_000, accountDetailsTtlMs: 0, listLimit: 100 },
    );
    desks.push(desk);
    await desk.start();
    return desk;
  };
  const startDesk = async () => {
    const records = {
      createIfAbsent: (key: string, value: unknown) => bucket.createIfAbsent(key, value),
      get: <T>(key: string) => bucket.get<T>(key),
      put: (key: string, value: unknown) =>
        faults.writesDown ? Promise.reject(new Error('injected: KV write failed')) : bucket.put(key, value),
      values: <T>() => bucket.values<T>(),
      remove: (key: string) => bucket.remove(key),
      removeAt: (key: string, revision: number) => bucket.removeAt(key, revision),
      compareAndSet: (key: string, value: unknown, revision: number) => bucket.compareAndSet(key, value, revision),
      purgeRemovedMarkers: (olderThanMs?: number) => bucket.purgeRemovedMarkers(olderThanMs),
    };
    const desk = new WithdrawalDesk(
      venueWithFaults(),
      records,
      events,
      subjects,
      new WithdrawalMetrics(new MetricsRegistry('t', { defaultMetrics: false })),
      systemClock,
      silent,
      { pollMs: 200, unknownSettleMs: 500, stuckAfterMs: 60_000, accountDetailsTtlMs: 0, listLimit: 100 },
    );
    desks.push(desk);
    await desk.start();
    await desk.republishUnpublished();
    return desk;
  };
  /** Every state published for a request, in order. */
  const published = async (requestId: string): Promise<WithdrawalRequestState[]> => {
    const states: WithdrawalRequestState[] = [];
    await streams.readAll<WithdrawalStateChanged>(STREAM, subjects.changed(requestId), (_subject, event) => {
      if (event !== undefined) states.push(event.withdrawal.state);
    });
    return states;
  };
  const request = (idempotencyKey: string) =>
    Object.assign(new WithdrawalSubmitRequest(), {
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'EUR',
      amount: '42.00',
      bankAccountUuid: venue.seed.bankEurOk,
    });

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue();
    const registry = new MetricsRegistry('bus', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: nats.url, name: 't' },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    streams = new BusStreams(connection, silent);
    await streams.ensureStream({ name: STREAM, subjects: [subjects.allChanged], storage: 'file' });
    bucket = await new BusKv(connection).bucket(AccountLedgerName.withdrawalRequests(ACCOUNT));
    publisher = new BusPublisher(
      connection,
      new BusMetrics(new MetricsRegistry('p', { defaultMetrics: false })),
      silent,
    );
    client = new VenueRestClient({
      baseUrl: venue.restBaseUrl,
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      antiReplay: new TonceSource(),
    });
  });
  afterAll(async () => {
    for (const desk of desks) await desk.stop();
    await connection?.close();
    await venue?.close();
    await nats?.stop();
  });

  it('a NOT_FOUND request the venue shows later moves to the state it shows; it was never sent twice', async () => {
    const desk = await startDesk();
    const sentBefore = (await client.listFiatWithdrawals()).length;
    faults.loseSubmitAnswer = true;
    faults.hideFromLists = true; // the venue's list lags behind the request it created
    const answer = await desk.submit(request('watch-1'));
    faults.loseSubmitAnswer = false;
    expect(answer).toMatchObject({ ok: true, withdrawal: { state: 'UNKNOWN' } });
    const requestId = answer.ok ? answer.withdrawal.requestId : '';
    await eventually(async () => ((await stateOf(desk, requestId)) === 'NOT_FOUND' ? true : undefined), {
      what: 'NOT_FOUND after the settle time',
    });
    faults.hideFromLists = false; // the list shows it now
    await eventually(async () => ((await stateOf(desk, requestId)) === 'PENDING_APPROVAL' ? true : undefined), {
      what: 'the state the venue shows',
    });
    expect(await published(requestId)).toEqual(['SUBMITTING', 'UNKNOWN', 'NOT_FOUND', 'PENDING_APPROVAL']);
    expect((await client.listFiatWithdrawals()).length).toBe(sentBefore + 1); // sent once
  });

  it('a crypto submit acknowledged without uuid and not listed yet stays PENDING_APPROVAL (never UNKNOWN or NOT_FOUND); the list tells its uuid', async () => {
    const desk = await startDesk();
    faults.cryptoAnswerWithoutUuid = true;
    faults.hideFromLists = true;
    const answer = await desk.submit(
      Object.assign(new WithdrawalSubmitRequest(), {
        idempotencyKey: 'watch-crypto-1',
        kind: 'crypto',
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'BTC',
        amount: '0.01',
        walletUuid: venue.seed.walletBtcOk,
      }),
    );
    faults.cryptoAnswerWithoutUuid = false;
    expect(answer).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const requestId = answer.ok ? answer.withdrawal.requestId : '';
    expect(answer.ok && answer.withdrawal.venueUuid).toBeUndefined();
    // lists without it (an UNKNOWN request would be NOT_FOUND by now): the venue said it took it
    for (let i = 0; i < 5; i += 1) await desk.poll();
    expect(await stateOf(desk, requestId)).toBe('PENDING_APPROVAL');
    faults.hideFromLists = false;
    const listed = (await client.listCryptoWithdrawals()).find((row) => row.clientComment?.includes(requestId));
    const learnt = await eventually(
      async () => {
        const got = await desk.get({ requestId });
        return got.ok ? got.withdrawal.venueUuid : undefined;
      },
      { what: 'the venue uuid from the list' },
    );
    expect(learnt).toBe(listed?.uuid);
    expect(await published(requestId)).toEqual(['SUBMITTING', 'PENDING_APPROVAL']);
  });

  it('sent, and its result cannot be stored: the caller is told UNKNOWN (never a failure), the lists settle it', async () => {
    const desk = await startDesk();
    const sentBefore = (await client.listFiatWithdrawals()).length;
    faults.writesDown = true; // the intent is stored; the venue's answer cannot be
    const answer = await desk.submit(request('watch-3'));
    faults.writesDown = false;
    expect(answer).toMatchObject({ ok: true, withdrawal: { state: 'UNKNOWN' } });
    const requestId = answer.ok ? answer.withdrawal.requestId : '';
    await eventually(async () => ((await stateOf(desk, requestId)) === 'PENDING_APPROVAL' ? true : undefined), {
      what: 'settled from the list',
    });
    expect((await client.listFiatWithdrawals()).length).toBe(sentBefore + 1); // sent once
  });

  it('a state stored but never published (the process ended) is published at the next start, once', async () => {
    const desk = await startDesk();
    const answer = await desk.submit(request('watch-2'));
    expect(answer).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const requestId = answer.ok ? answer.withdrawal.requestId : '';
    const uuid = answer.ok ? (answer.withdrawal.venueUuid ?? '') : '';
    faults.publishDown = true; // JetStream down: the cancel is stored, its change held in memory …
    expect(await desk.cancel({ requestId })).toMatchObject({ ok: true });
    await eventually(async () => ((await stateOf(desk, requestId)) === 'CANCELLED' ? true : undefined), {
      what: 'CANCELLED stored',
    });
    await desk.stop(); // … and the process ends before JetStream is back
    desks.splice(desks.indexOf(desk), 1);
    faults.publishDown = false;
    expect(await published(requestId)).toEqual(['SUBMITTING', 'PENDING_APPROVAL']);
    await startDesk();
    expect(await published(requestId)).toEqual(['SUBMITTING', 'PENDING_APPROVAL', 'CANCELLED']);
    // a change from the state last published, not from nothing (a consumer would take that for a new request)
    const republished = await streams.lastMessage<WithdrawalStateChanged>(STREAM, subjects.changed(requestId));
    expect(republished?.value).toMatchObject({ previousState: 'PENDING_APPROVAL', withdrawal: { state: 'CANCELLED' } });
    await startDesk(); // started again: nothing published twice
    expect(await published(requestId)).toEqual(['SUBMITTING', 'PENDING_APPROVAL', 'CANCELLED']);
    expect(uuid).not.toBe('');
  });

  it('a request whose record the store lost, submitted again with its key: found in the venue list, not sent again', async () => {
    for (const running of desks.splice(0)) await running.stop();
    const desk = await startDesk();
    const first = await desk.submit(request('watch-4'));
    expect(first).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const requestId = first.ok ? first.withdrawal.requestId : '';
    const sent = (await client.listFiatWithdrawals()).length;
    await desk.stop();
    desks.splice(desks.indexOf(desk), 1);
    await bucket.remove(requestId); // the store lost it (a server's store, a write a failover dropped)
    const again = await (await startDesk()).submit(request('watch-4'));
    expect(again).toMatchObject({
      ok: true,
      withdrawal: { requestId, state: 'PENDING_APPROVAL', venueUuid: first.ok ? first.withdrawal.venueUuid : '' },
    });
    expect((await client.listFiatWithdrawals()).length).toBe(sent); // not sent a second time
  });

  it('another gateway account of the same group used the same key first: its request is not taken for ours', async () => {
    const other = await startOtherAccountDesk('watch-other');
    const theirs = await other.submit(request('shared-key'));
    expect(theirs).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const sent = (await client.listFiatWithdrawals()).length;
    const ours = await (await startDesk()).submit(request('shared-key'));
    expect(ours).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(ours.ok && theirs.ok && ours.withdrawal.venueUuid !== theirs.withdrawal.venueUuid).toBe(true);
    expect(ours.ok && theirs.ok && ours.withdrawal.requestId !== theirs.withdrawal.requestId).toBe(true);
    expect((await client.listFiatWithdrawals()).length).toBe(sent + 1); // ours was sent
  });

  it('a request stored under the id of before (the key alone) is found by its key and never sent again', async () => {
    const desk = await startDesk();
    const legacyId = legacyRequestIdOf('watch-legacy');
    const now = Date.now();
    const { idempotencyKey, kind, accountGroupUuid, ccy, amount, bankAccountUuid } = request('watch-legacy');
    await bucket.put(legacyId, {
      view: {
        ...{ requestId: legacyId, idempotencyKey, kind, accountGroupUuid, ccy, amount, bankAccountUuid },
        ...{ state: 'CANCELLED', venueUuid: 'venue-uuid-of-before', createdAt: now, updatedAt: now },
      },
    });
    const sent = (await client.listFiatWithdrawals()).length;
    expect(await desk.submit(request('watch-legacy'))).toMatchObject({
      ok: true,
      withdrawal: { requestId: legacyId, state: 'CANCELLED', venueUuid: 'venue-uuid-of-before' },
    });
    expect(await desk.get({ idempotencyKey: 'watch-legacy' })).toMatchObject({ withdrawal: { requestId: legacyId } });
    expect((await client.listFiatWithdrawals()).length).toBe(sent);
  });

  it('a list whose rows would not fit in one NATS reply stops short and says it is truncated', async () => {
    const desk = await startDesk();
    faults.hugeList = true;
    try {
      const reply = await desk.list(Object.assign(new WithdrawalListRequest(), { kind: 'fiat', limit: 2_000 }));
      expect(reply).toMatchObject({ ok: true, truncated: true });
      expect(Buffer.byteLength(JSON.stringify(reply))).toBeLessThan(1024 * 1024);
      expect(reply.ok ? reply.withdrawals.length : 0).toBeGreaterThan(500);
    } finally {
      faults.hugeList = false;
    }
  });
});

async function stateOf(desk: WithdrawalDesk, requestId: string): Promise<WithdrawalRequestState | undefined> {
  const answer = await desk.get({ requestId });
  return answer.ok ? answer.withdrawal.state : undefined;
}

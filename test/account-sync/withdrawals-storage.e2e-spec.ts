/**
 * Durable intent first: when the request cannot be stored on NATS, nothing is sent to the venue
 * (STORAGE_UNAVAILABLE), and the same key goes through once storage is back. The desk runs against the
 * sandbox venue and a real nats-server; the storage fault is injected into the real KV bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '#actors';
import { AccountLedgerName, BusConnection, BusKv, BusMetrics, BusPublisher, type KvBucket } from '#bus';
import { WithdrawalSubjects, WithdrawalSubmitRequest } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import { TonceSource, VenueRestClient } from '#venue-api';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import {
  sendMarkKey,
  WithdrawalDesk,
  type WithdrawalRecords,
  type WithdrawalVenue,
} from '../../apps/account-sync/src/withdrawals/withdrawal-desk.js';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import { WithdrawalMetrics } from '../../apps/account-sync/src/withdrawals/withdrawal-metrics.js';
import { startE2eVenue } from '../kit/e2e-venue.js';

const silent = new JsonLogger('desk-test', 'test', 'error', { write: () => undefined });

describe('withdrawal desk: the intent is stored before anything is sent', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let connection: BusConnection;
  let desk: WithdrawalDesk;
  let client: VenueRestClient;
  let storageDown = true;
  let ackLost = false;
  /** Only the send marks' writes of this idempotency key fail (the intent was stored). */
  let marksDownFor: string | undefined;
  let bucket: KvBucket;
  /** Another desk on the same bucket and venue (another process at a hand-over), stopped after its test. */
  let deskOn: (venueApi: WithdrawalVenue, records: WithdrawalRecords) => WithdrawalDesk;
  const others: WithdrawalDesk[] = [];
  let faulty: WithdrawalRecords;

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue();
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: nats.url, name: 't' },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    bucket = await new BusKv(connection).bucket(AccountLedgerName.withdrawalRequests('t'));
    faulty = {
      createIfAbsent: async (key: string, value: unknown) => {
        if (storageDown) throw new Error('injected: KV unavailable');
        if (marksDownFor !== undefined && key === sendMarkKey(requestIdOf('t', marksDownFor)))
          throw new Error('injected: mark not written');
        const created = await bucket.createIfAbsent(key, value);
        if (ackLost) throw new Error('injected: the write was stored, its answer lost');
        return created;
      },
      remove: (key: string) => bucket.remove(key),
      removeAt: (key: string, revision: number) => bucket.removeAt(key, revision),
      compareAndSet: (key: string, value: unknown, revision: number) => bucket.compareAndSet(key, value, revision),
      purgeRemovedMarkers: (olderThanMs?: number) => bucket.purgeRemovedMarkers(olderThanMs),
      get: <T>(key: string) =>
        storageDown ? Promise.reject(new Error('injected: KV unavailable')) : bucket.get<T>(key),
      put: (key: string, value: unknown) => bucket.put(key, value),
      values: <T>() => bucket.values<T>(),
    };
    client = new VenueRestClient({
      baseUrl: venue.restBaseUrl,
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      antiReplay: new TonceSource(),
    });
    const publisher = new BusPublisher(
      connection,
      new BusMetrics(new MetricsRegistry('p', { defaultMetrics: false })),
      silent,
    );
    desk = new WithdrawalDesk(
      client,
      faulty,
      {
        publish: async (subject, event, msgId) => {
          await publisher.publishDurable(subject, event, { msgId, kind: 'acct.withdrawal.changed' });
        },
        lastPublished: async () => undefined, // every request of before is published again at start
      },
      new WithdrawalSubjects('gw.v1', 't'),
      new WithdrawalMetrics(registry),
      systemClock,
      silent,
      { pollMs: 60_000, unknownSettleMs: 60_000, stuckAfterMs: 60_000, accountDetailsTtlMs: 0, listLimit: 100 },
    );
    await desk.start();
    deskOn = (venueApi, records) =>
      new WithdrawalDesk(
        venueApi,
        records,
        {
          publish: async (subject, event, msgId) => {
            await publisher.publishDurable(subject, event, { msgId, kind: 'acct.withdrawal.changed' });
          },
          lastPublished: async () => undefined,
        },
        new WithdrawalSubjects('gw.v1', 't'),
        new WithdrawalMetrics(new MetricsRegistry(`o${others.length}`, { defaultMetrics: false })),
        systemClock,
        silent,
        { pollMs: 60_000, unknownSettleMs: 60_000, stuckAfterMs: 60_000, accountDetailsTtlMs: 0, listLimit: 100 },
      );
  });
  afterAll(async () => {
    for (const other of others) await other.stop();
    await desk?.stop();
    await connection?.close();
    await venue?.close();
    await nats?.stop();
  });

  it('answers STORAGE_UNAVAILABLE and sends nothing; the same key goes through once storage is back', async () => {
    const request = Object.assign(new WithdrawalSubmitRequest(), {
      idempotencyKey: 'storage-1',
      kind: 'fiat',
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'EUR',
      amount: '42.00',
      bankAccountUuid: venue.seed.bankEurOk,
    });
    const before = (await client.listFiatWithdrawals()).length;
    expect(await desk.submit(request)).toMatchObject({ ok: false, error: { code: 'STORAGE_UNAVAILABLE' } });
    expect((await desk.health()).up).toBe(false);
    expect((await client.listFiatWithdrawals()).length).toBe(before);
    storageDown = false;
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect((await desk.health()).up).toBe(true);
    expect((await client.listFiatWithdrawals()).length).toBe(before + 1);
  });

  it('an intent stored whose answer was lost: STORAGE_UNAVAILABLE, nothing sent, and the same key goes through once', async () => {
    const request = Object.assign(new WithdrawalSubmitRequest(), {
      idempotencyKey: 'storage-2',
      kind: 'fiat',
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'EUR',
      amount: '43.00',
      bankAccountUuid: venue.seed.bankEurOk,
    });
    const before = (await client.listFiatWithdrawals()).length;
    ackLost = true;
    expect(await desk.submit(request)).toMatchObject({ ok: false, error: { code: 'STORAGE_UNAVAILABLE' } });
    ackLost = false;
    expect((await client.listFiatWithdrawals()).length).toBe(before);
    // the retry is sent (it found no request stuck SUBMITTING that nothing would ever settle)
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect((await client.listFiatWithdrawals()).length).toBe(before + 1);
  });

  const eurRequest = (idempotencyKey: string, amount: string) =>
    Object.assign(new WithdrawalSubmitRequest(), {
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'EUR',
      amount,
      bankAccountUuid: venue.seed.bankEurOk,
    });
  const rowsOf = async (requestId: string) =>
    (await client.listFiatWithdrawals()).filter((row) => row.clientComment?.startsWith(`gw:${requestId}`)).length;

  it('a send mark that cannot be written sends nothing: SUBMITTING, and the same key sends it once when it can be', async () => {
    const request = eurRequest('mark-down', '44.00');
    const requestId = requestIdOf('t', 'mark-down');
    marksDownFor = 'mark-down';
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { requestId, state: 'SUBMITTING' } });
    expect(await rowsOf(requestId)).toBe(0);
    marksDownFor = undefined;
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await rowsOf(requestId)).toBe(1);
  });

  it('a send mark another process created first (a hand-over): this one never sends; UNKNOWN, settled by the lists', async () => {
    const request = eurRequest('mark-held', '45.00');
    const requestId = requestIdOf('t', 'mark-held');
    // the process before the hand-over marked it (and may be sending it): this desk must not send it too
    await bucket.createIfAbsent(sendMarkKey(requestId), { requestId, markedAt: Date.now() });
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { requestId, state: 'UNKNOWN' } });
    expect(await rowsOf(requestId)).toBe(0);
    expect(await desk.submit(request)).toMatchObject({ ok: true, withdrawal: { requestId, state: 'UNKNOWN' } });
    expect(await rowsOf(requestId)).toBe(0);
  });

  it('a copy read SUBMITTING before another desk sent it and removed its spent mark: the mark made again, never sent twice', async () => {
    const request = eurRequest('stale-copy', '46.00');
    const requestId = requestIdOf('t', 'stale-copy');
    storageDown = false;
    // this desk's lists lag (they do not show the request yet): only the confirmation after its mark stops a send
    let listsLag = false;
    const lagging: WithdrawalVenue = Object.assign(Object.create(client) as VenueRestClient, {
      listFiatWithdrawals: async () => (listsLag ? [] : client.listFiatWithdrawals()),
    });
    const stale = deskOn(lagging, faulty);
    const current = deskOn(client, bucket);
    others.push(stale, current);
    await stale.start();
    await current.start();
    marksDownFor = 'stale-copy';
    // the stale desk keeps its copy SUBMITTING (its mark could not be written: nothing sent)
    expect(await stale.submit(request)).toMatchObject({ ok: true, withdrawal: { requestId, state: 'SUBMITTING' } });
    marksDownFor = undefined;
    // the other desk sends it (the caller asked it with the key): answered, its spent mark removed
    expect(await current.submit(request)).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await bucket.get(sendMarkKey(requestId))).toBeUndefined();
    expect(await rowsOf(requestId)).toBe(1);
    // the stale desk's poll finds its copy unsent and no mark: it creates the mark, the record says otherwise
    listsLag = true;
    await stale.poll();
    listsLag = false;
    expect(await rowsOf(requestId)).toBe(1);
    expect(await stale.get({ requestId })).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await bucket.get(sendMarkKey(requestId))).toBeUndefined(); // the mark it made again, removed
  });
});

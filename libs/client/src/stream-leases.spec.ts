/**
 * Two watches of one price stream in one client share the connector's lease (one per requester and stream): on
 * a real nats-server, a stand-in connector keeps leases as the real one does (a subscribe takes or extends the
 * requester's lease when it arrives, a release drops it) and lets the test hold its answers back — the fault
 * that opens the races: a grant on its way while the other watch leaves, a release the connector handles after
 * a grant. The stream stays leased while any watch remains and is released once, when the last one leaves.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { Subscription } from 'rxjs';
import { Subjects, type PriceMessage, type StreamRelease, type StreamRequest } from '#contracts';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { GatewayClient } from './gateway-client.js';
import type { PriceUpdate } from './price-update.js';

const ACCOUNT = 'leases';
const REQUESTER = 'two-watches';
const subjects = new Subjects('gw.v1', ACCOUNT);
const btc = { instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T', accountGroup: 'g' };
const SUBJECT = subjects.price(btc);

/** The connector's lease book for one requester, with answers the test may hold back. */
class StandInConnector {
  readonly leased = new Set<string>();
  readonly subscribes: string[] = [];
  /** The lease each subscribe (grant or renewal) asked for, in order. */
  readonly leaseSeconds: number[] = [];
  readonly releases: string[] = [];
  holdGrants = false;
  holdReleases = false;
  private readonly heldGrants: (() => void)[] = [];
  private readonly heldReleases: (() => void)[] = [];

  constructor(nc: NatsConnection) {
    nc.subscribe(subjects.streamSubscribe, { callback: (_e, m) => this.subscribe(m) });
    nc.subscribe(subjects.streamRelease, { callback: (_e, m) => this.release(m) });
  }

  private subscribe(message: Msg): void {
    const request = message.json<StreamRequest>();
    const subject = subjects.price(request);
    this.subscribes.push(subject);
    this.leaseSeconds.push(request.leaseSeconds ?? 0);
    this.leased.add(subject); // taken (or extended) on arrival, as the connector does for a held stream
    const answer = () =>
      void message.respond(JSON.stringify({ ok: true, subject, leaseExpiresAt: Date.now() + 30_000 }));
    if (this.holdGrants) this.heldGrants.push(answer);
    else answer();
  }

  private release(message: Msg): void {
    const { subject } = message.json<StreamRelease>();
    const apply = () => {
      this.releases.push(subject);
      this.leased.delete(subject);
      message.respond(JSON.stringify({ ok: true }));
    };
    if (this.holdReleases) this.heldReleases.push(apply);
    else apply();
  }

  get grantsHeld(): number {
    return this.heldGrants.length;
  }
  get releasesHeld(): number {
    return this.heldReleases.length;
  }

  answerGrants(): void {
    this.holdGrants = false;
    for (const answer of this.heldGrants.splice(0)) answer();
  }

  applyReleases(): void {
    this.holdReleases = false;
    for (const apply of this.heldReleases.splice(0)) apply();
  }

  reset(): void {
    this.answerGrants();
    this.applyReleases();
    this.leased.clear();
    this.subscribes.length = 0;
    this.leaseSeconds.length = 0;
    this.releases.length = 0;
  }
}

describe('price leases shared by the watches of one client', () => {
  let nats: NatsServerHandle;
  let venue: NatsConnection;
  let connector: StandInConnector;
  let client: GatewayClient;
  const watching: Subscription[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await connect({ servers: nats.url });
    connector = new StandInConnector(venue);
    await venue.flush();
    client = await GatewayClient.connect({ servers: nats.url, account: ACCOUNT, requester: REQUESTER });
  });
  afterEach(() => {
    for (const subscription of watching.splice(0)) subscription.unsubscribe();
    connector.reset();
  });
  afterAll(async () => {
    await client?.close();
    await venue?.drain();
    await nats?.stop();
  });

  /** A watch whose updates are collected (long lease by default: no renewal during a test). */
  const watch = (request = btc, leaseSeconds = 3600): PriceUpdate[] => {
    const seen: PriceUpdate[] = [];
    watching.push(client.prices.watch(request, { leaseSeconds }).subscribe((u) => seen.push(u)));
    return seen;
  };
  const price = (quoteId: string): PriceMessage => ({
    v: 1,
    status: 'live',
    ...btc,
    quoteId,
    venueTimestamp: Date.now(),
    quoteExpiresAt: Date.now() + 600_000,
    bid: { price: '64000', quantity: '0.5', quoteAmount: '32000' },
    offer: { price: '64010', quantity: '0.5', quoteAmount: '32005' },
  });
  /** Publishes prices until `seen` has one of `quoteId`: the watch is granted and listening. */
  const receives = (seen: PriceUpdate[], quoteId: string) =>
    eventually(
      () => {
        venue.publish(SUBJECT, JSON.stringify(price(quoteId)));
        return seen.some((u) => u.price.quoteId === quoteId) ? true : undefined;
      },
      { what: `price ${quoteId} at the watch` },
    );
  const lastLeaves = async (): Promise<void> => {
    for (const subscription of watching.splice(0)) subscription.unsubscribe();
    await eventually(() => (connector.releases.length > 0 ? true : undefined), { what: 'the release' });
    await client.context.nc.flush();
    expect(connector.releases).toEqual([SUBJECT]); // once
    expect(connector.leased.has(SUBJECT)).toBe(false);
  };

  const whileOtherGranted = [
    { when: 'one watch leaves while the other is being granted: the stream stays leased for the other', other: btc },
    {
      when: 'the same when the grant in flight names the stream otherwise (0.50 for 0.5)',
      other: { ...btc, quantity: '0.50' },
    },
  ];
  for (const { when, other } of whileOtherGranted) {
    it(when, async () => {
      const first = watch();
      await receives(first, 'q1');
      connector.holdGrants = true;
      const second = watch(other);
      await eventually(() => (connector.grantsHeld === 1 ? true : undefined), { what: 'the second subscribe' });
      watching.shift()?.unsubscribe(); // the first leaves while the second's grant is on its way
      await client.context.nc.flush();
      connector.answerGrants();
      await receives(second, 'q2');
      await client.context.nc.flush();
      expect(connector.releases).toEqual([]);
      expect(connector.leased.has(SUBJECT)).toBe(true);
      await lastLeaves();
    });
  }

  it('both grants on their way and the first watch leaves before its own: nothing released', async () => {
    connector.holdGrants = true;
    watch();
    const second = watch();
    await eventually(() => (connector.grantsHeld === 2 ? true : undefined), { what: 'both subscribes' });
    watching.shift()?.unsubscribe();
    connector.answerGrants();
    await receives(second, 'q1');
    await client.context.nc.flush();
    expect(connector.releases).toEqual([]);
    expect(connector.leased.has(SUBJECT)).toBe(true);
    await lastLeaves();
  });

  it('a release the connector handles after a new watch was granted: the new watch is granted again', async () => {
    const first = watch();
    await receives(first, 'q1');
    connector.holdReleases = true;
    watching.shift()?.unsubscribe(); // the last one leaves: its release is on its way, not handled yet
    await eventually(() => (connector.releasesHeld === 1 ? true : undefined), { what: 'the release' });
    const second = watch();
    await eventually(() => (connector.subscribes.length === 2 ? true : undefined), { what: 'the second subscribe' });
    await venue.flush();
    await client.context.nc.flush(); // its grant is back (or on its way) while the release still waits
    connector.applyReleases(); // handled after the grant: the lease is gone
    await eventually(() => (connector.leased.has(SUBJECT) ? true : undefined), { what: 'the lease asked again' });
    await receives(second, 'q2');
    expect(connector.subscribes).toEqual([SUBJECT, SUBJECT, SUBJECT]);
    connector.releases.length = 0;
    await lastLeaves();
  });

  it('a short watch renews for the longest lease of the stream: its renewal never cuts the long watch’s lease', async () => {
    const long = watch(btc, 3600);
    await receives(long, 'q1');
    const short = watch(btc, 5); // renews every 2.5 s
    await receives(short, 'q2');
    await eventually(() => (connector.leaseSeconds.length >= 3 ? true : undefined), {
      what: 'the short watch renewing',
      timeoutMs: 10_000,
    });
    // the grants asked for what each watch wants; every renewal for the longest held (the connector keeps the last)
    expect(connector.leaseSeconds.slice(0, 2)).toEqual([3600, 5]);
    expect(connector.leaseSeconds.slice(2).every((seconds) => seconds === 3600)).toBe(true);
    // the short one leaves: the lease is renewed for the long one at once (its own renewal is half an hour away)
    const before = connector.leaseSeconds.length;
    watching.pop()?.unsubscribe();
    await eventually(() => (connector.leaseSeconds.length > before ? true : undefined), { what: 'a renewal' });
    expect(connector.leaseSeconds.at(-1)).toBe(3600);
    expect(connector.releases).toEqual([]);
    await lastLeaves();
  });
});

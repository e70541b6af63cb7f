import { type Observable, Subject } from 'rxjs';
import { DEFAULT_LEASE_SECONDS, type PriceMessage, sizeToken, type StreamRequest } from '#contracts';
import type { PriceUpdate, ServiceMessage, StreamStop, SubscribeAck } from '#venue-api';
import type { JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { VenueMetrics } from '../venue-metrics.js';
import type { AcquireResult, PriceStream, StreamKeyFields } from './price-stream.js';

/** §2.2 rule 4: a quote expires ten minutes after issue. */
export const QUOTE_LIFETIME_MS = 10 * 60 * 1000;
/** §7.1: the venue already holds this subscription on the connection; it counts as held. */
export const ALREADY_HELD = 'RFS100017';

export interface PriceStreamOptions {
  staleAfterMs: number;
  subscribeTimeoutMs: number;
}

export type ReleaseRequest = StreamKeyFields & { requester: string };

/**
 * The price streams of the account: identical requests share one venue subscription, reference-counted
 * by requester leases; prices are routed by tag (§2.2 rule 2) with one Map lookup, ordered by the venue's
 * timestamp, and published as `PriceMessage`s on `prices$`. One sweep timer handles staleness and lease
 * expiry, so nothing is scheduled per update.
 */
export class PriceStreamRegistry {
  private readonly byKey = new Map<string, PriceStream>();
  private readonly byTag = new Map<string, PriceStream>();
  private readonly priceSubject = new Subject<PriceMessage>();
  private readonly log: JsonLogger;
  private readonly cancelSweep: Cancel;
  private nextTag = 1;
  private lastPriceWallAt: number | undefined;
  private staleCount = 0;

  readonly prices$: Observable<PriceMessage>;

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly metrics: VenueMetrics,
    logger: JsonLogger,
    private readonly clock: VenueClock,
    private readonly options: PriceStreamOptions,
  ) {
    this.log = logger.child('PriceStreamRegistry');
    this.prices$ = this.priceSubject.asObservable();
    channel.addFrameListener((message, arrivedAt) => this.onFrame(message, arrivedAt));
    channel.connection$.subscribe((event) => (event.up ? this.onConnectionUp() : this.onConnectionDown()));
    const period = Math.max(10, Math.min(1_000, Math.floor(options.staleAfterMs / 4)));
    this.cancelSweep = clock.setInterval(() => this.sweep(), period);
  }

  /** Resolves once the venue acked (or the shared stream is already held): ok → the requester holds a lease. */
  acquire(req: StreamRequest): Promise<AcquireResult> {
    let key: string;
    try {
      key = streamKey(req);
    } catch (error) {
      return Promise.resolve({ ok: false, code: 'INVALID_REQUEST', message: (error as Error).message });
    }
    const leaseExpiresAt = this.clock.now() + (req.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
    let stream = this.byKey.get(key);
    if (stream === undefined) {
      stream = this.create(key, req);
      stream.leases.set(req.requester, leaseExpiresAt);
      this.subscribe(stream);
    } else {
      stream.leases.set(req.requester, leaseExpiresAt);
    }
    if (stream.venue === 'held') return Promise.resolve({ ok: true, leaseExpiresAt });
    const waiting = stream;
    return new Promise<AcquireResult>((resolve) => {
      let settled = false;
      const cancel = this.clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        const index = waiting.waiters.findIndex((w) => w.settle === settle);
        if (index >= 0) waiting.waiters.splice(index, 1);
        this.dropLease(waiting, req.requester);
        resolve(
          this.channel.isOpen
            ? { ok: false, code: 'TIMEOUT', message: 'the venue did not acknowledge the subscription in time' }
            : { ok: false, code: 'NOT_CONNECTED', message: 'the venue session is not open; ask again later' },
        );
      }, this.options.subscribeTimeoutMs);
      const settle = (result: AcquireResult): void => {
        if (settled) return;
        settled = true;
        cancel();
        resolve(result);
      };
      waiting.waiters.push({ requester: req.requester, leaseExpiresAt, settle });
    });
  }

  release(req: ReleaseRequest): void {
    let key: string;
    try {
      key = streamKey(req);
    } catch {
      return;
    }
    const stream = this.byKey.get(key);
    if (stream !== undefined) this.dropLease(stream, req.requester);
  }

  counts(): { live: number; stale: number; pending: number } {
    let live = 0;
    let stale = 0;
    let pending = 0;
    for (const stream of this.byKey.values()) {
      if (stream.venue !== 'held') pending++;
      else if (stream.status === 'stale') stale++;
      else live++;
    }
    return { live, stale, pending };
  }

  /** Epoch ms of the newest price published. */
  lastPriceAt(): number | undefined {
    return this.lastPriceWallAt;
  }

  /** True while the venue holds a subscription of ours: silence then means a stalled socket. */
  expectsTraffic(): boolean {
    for (const stream of this.byKey.values()) if (stream.venue === 'held') return true;
    return false;
  }

  close(): void {
    this.cancelSweep();
    for (const stream of [...this.byKey.values()]) this.remove(stream, 'SHUTDOWN', 'connector stopping', false);
    this.priceSubject.complete();
  }

  // ------------------------------------------------------------------ venue frames

  private onFrame(message: ServiceMessage, arrivedAt: number): void {
    switch (message.messageType) {
      case 'pricestream':
        this.onPrice(message, arrivedAt);
        return;
      case 'subscribe':
        this.onAck(message);
        return;
      case 'streamStop':
        this.onStreamStop(message);
        return;
      default:
        return;
    }
  }

  /** Hot path. */
  private onPrice(update: PriceUpdate, arrivedAt: number): void {
    const stream = update.tag === undefined ? undefined : this.byTag.get(update.tag);
    if (stream === undefined) {
      this.metrics.framesRejected.inc({ reason: 'unknown_tag' });
      return;
    }
    const timestamp = update.timestamp;
    if (timestamp <= stream.lastTimestamp) {
      this.metrics.outOfOrderDropped.inc();
      return;
    }
    const now = this.clock.now();
    stream.lastTimestamp = timestamp;
    stream.lastUpdateAt = now;
    if (stream.status === 'stale') this.staleCount--;
    stream.status = 'live';
    const bid = update.bid;
    const offer = update.offer;
    const price: PriceMessage = {
      v: 1,
      status: 'live',
      accountGroup: stream.accountGroup,
      instrument: stream.instrument,
      tenor: stream.tenor,
      currency: stream.currency,
      quantity: stream.quantity,
      quoteId: update.quoteId,
      venueTimestamp: timestamp,
      quoteExpiresAt: timestamp + QUOTE_LIFETIME_MS,
      bid: { price: bid.price, quantity: bid.quantity, quoteAmount: bid.quoteAmount },
      offer: { price: offer.price, quantity: offer.quantity, quoteAmount: offer.quoteAmount },
    };
    if (update.settleDate !== undefined) price.settleDate = update.settleDate;
    stream.last = price;
    this.lastPriceWallAt = now;
    this.priceSubject.next(price);
    this.metrics.priceUpdates.inc();
    this.metrics.priceHopSeconds.observe((performance.now() - arrivedAt) / 1000);
  }

  private onAck(ack: SubscribeAck): void {
    const stream = ack.tag === undefined ? undefined : this.byTag.get(ack.tag);
    if (stream === undefined) {
      // Interest vanished while the subscribe was in flight: do not leave an orphan at the venue.
      if (ack.success && ack.subscriptionId) this.unsubscribeAtVenue(ack.subscriptionId);
      return;
    }
    if (stream.venue === 'held') return;
    const code = ack.code ?? '';
    if (ack.success || code === ALREADY_HELD) {
      stream.venue = 'held';
      if (ack.success) stream.subscriptionId = ack.subscriptionId;
      if (stream.status === 'none') stream.lastUpdateAt = this.clock.now();
      for (const waiter of stream.waiters.splice(0)) waiter.settle({ ok: true, leaseExpiresAt: waiter.leaseExpiresAt });
      return;
    }
    this.metrics.countSubscribeFailure(code);
    this.log.warn('venue refused a subscription', {
      instrument: stream.instrument,
      tenor: stream.tenor,
      currency: stream.currency,
      quantity: stream.quantity,
      accountGroup: stream.accountGroup,
      code,
    });
    this.remove(stream, code || 'SUBSCRIBE_FAILED', ack.message ?? 'subscription refused', false);
  }

  private onStreamStop(stop: StreamStop): void {
    const stream = stop.tag === undefined ? undefined : this.byTag.get(stop.tag);
    if (stream === undefined) return;
    this.log.warn('venue stopped a stream', { instrument: stream.instrument, tenor: stream.tenor, code: stop.code });
    this.remove(stream, stop.code || 'STREAM_STOPPED', stop.message ?? 'the venue stopped the stream', false);
  }

  // ------------------------------------------------------------------ connection

  private onConnectionDown(): void {
    for (const stream of this.byKey.values()) {
      stream.venue = 'pending';
      stream.subscriptionId = undefined;
      stream.attempt++;
    }
  }

  /** Every subscription is re-established on the new connection (the old one died with its socket). */
  private onConnectionUp(): void {
    for (const stream of this.byKey.values()) if (stream.venue !== 'held') this.subscribe(stream);
  }

  private subscribe(stream: PriceStream): void {
    stream.attempt++;
    stream.subscribeSentAt = undefined;
    if (!this.channel.isOpen) {
      stream.venue = 'pending';
      return;
    }
    stream.venue = 'subscribing';
    const attempt = stream.attempt;
    void this.limiter.acquire('subscribe').then(() => {
      if (this.byTag.get(stream.tag) !== stream || stream.attempt !== attempt) return;
      const sent = this.channel.send({
        messageType: 'subscribe',
        instrument: stream.instrument,
        quantity: stream.quantity,
        currency: stream.currency,
        accountGrpUuid: stream.accountGroup,
        tenor: stream.tenor,
        tag: stream.tag,
      });
      if (sent) stream.subscribeSentAt = this.clock.now();
      else stream.venue = 'pending';
    });
  }

  private unsubscribeAtVenue(subscriptionId: string): void {
    void this.limiter.acquire('unsubscribe').then(() => {
      this.channel.send({ messageType: 'unsubscribe', subscriptionId });
    });
  }

  // ------------------------------------------------------------------ lifecycle of a stream

  private create(key: string, req: StreamKeyFields): PriceStream {
    const stream: PriceStream = {
      key,
      tag: `gw${(this.nextTag++).toString(36)}`,
      accountGroup: req.accountGroup,
      instrument: req.instrument,
      tenor: req.tenor,
      currency: req.currency,
      quantity: req.quantity,
      venue: 'pending',
      attempt: 0,
      subscriptionId: undefined,
      subscribeSentAt: undefined,
      status: 'none',
      lastTimestamp: Number.NEGATIVE_INFINITY,
      lastUpdateAt: this.clock.now(),
      last: undefined,
      leases: new Map(),
      waiters: [],
    };
    this.byKey.set(key, stream);
    this.byTag.set(stream.tag, stream);
    return stream;
  }

  private dropLease(stream: PriceStream, requester: string): void {
    stream.leases.delete(requester);
    if (stream.leases.size === 0 && stream.waiters.length === 0) {
      this.remove(stream, 'RELEASED', 'no requester holds this stream any more', true);
    }
  }

  private remove(stream: PriceStream, code: string, message: string, unsubscribe: boolean): void {
    if (this.byKey.get(stream.key) !== stream) return;
    this.byKey.delete(stream.key);
    this.byTag.delete(stream.tag);
    stream.attempt++;
    if (stream.status === 'stale') this.staleCount--;
    if (unsubscribe && stream.venue === 'held' && stream.subscriptionId !== undefined) {
      this.unsubscribeAtVenue(stream.subscriptionId);
    }
    for (const waiter of stream.waiters.splice(0)) waiter.settle({ ok: false, code, message });
    this.priceSubject.next({
      v: 1,
      status: 'stopped',
      accountGroup: stream.accountGroup,
      instrument: stream.instrument,
      tenor: stream.tenor,
      currency: stream.currency,
      quantity: stream.quantity,
      code,
      message,
    });
    this.metrics.staleStreams.set(this.staleCount);
  }

  /** The one timer: lease expiry and staleness. */
  private sweep(): void {
    const now = this.clock.now();
    for (const stream of [...this.byKey.values()]) {
      for (const [requester, expiresAt] of stream.leases) {
        if (expiresAt <= now) stream.leases.delete(requester);
      }
      if (stream.leases.size === 0 && stream.waiters.length === 0) {
        this.remove(stream, 'LEASE_EXPIRED', 'every requester lease expired', true);
        continue;
      }
      if (
        stream.venue === 'subscribing' &&
        stream.subscribeSentAt !== undefined &&
        now - stream.subscribeSentAt > this.options.subscribeTimeoutMs
      ) {
        // No acknowledgement (§2.1 rule 1 promises one): the frame was lost or dropped; ask again.
        // If the first did land, the venue answers "already held", which counts as held.
        stream.subscribeSentAt = undefined;
        this.subscribe(stream);
      }
      if (stream.status !== 'stale' && now - stream.lastUpdateAt > this.options.staleAfterMs) {
        if (stream.status === 'none' && stream.venue !== 'held') continue;
        stream.status = 'stale';
        this.staleCount++;
        this.priceSubject.next(staleCopy(stream));
      }
    }
    this.metrics.staleStreams.set(this.staleCount);
  }
}

/** Identical requests share one key: the size is normalised (`0.50` ≡ `0.5`). */
export function streamKey(req: StreamKeyFields): string {
  return `${req.accountGroup}|${req.instrument}|${req.tenor}|${req.currency}|${sizeToken(req.quantity)}`;
}

function staleCopy(stream: PriceStream): PriceMessage {
  if (stream.last !== undefined) return { ...stream.last, status: 'stale' };
  return {
    v: 1,
    status: 'stale',
    accountGroup: stream.accountGroup,
    instrument: stream.instrument,
    tenor: stream.tenor,
    currency: stream.currency,
    quantity: stream.quantity,
  };
}

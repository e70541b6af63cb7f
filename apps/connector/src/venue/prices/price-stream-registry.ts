import { createHash } from 'node:crypto';
import { Actor, type ActorOptions, type ActorRef } from '#actors';
import { DEFAULT_LEASE_SECONDS, GatewayErrorCode, type PriceMessage, sizeToken, type StreamRequest } from '#contracts';
import type { ServiceMessage } from '#venue-api';
import { LogThrottle, type JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { VenueMetrics } from '../venue-metrics.js';
import { EarlierSubscriptions, type SubscriptionLedger } from './earlier-subscriptions.js';
import { LazyCount } from './lazy-count.js';
import { judgeStaleness, type CadenceReading } from './price-cadence.js';
import { PriceFeed } from './price-feed.js';
import type { AcquireResult, StreamKeyFields, StreamWaiter } from './price-stream.js';
import { VenueReleases } from './venue-releases.js';
import {
  ALREADY_HELD,
  newPriceStream,
  priceStreamTransition,
  type PriceStreamEffect,
  type PriceStreamEnv,
  type PriceStreamEvent,
  type PriceStreamState,
  type StreamIdentity,
} from './price-stream-machine.js';

export { ALREADY_HELD, QUOTE_LIFETIME_MS } from './price-stream-machine.js';

export interface PriceStreamOptions {
  staleAfterMs: number;
  subscribeTimeoutMs: number;
  /** Streams held at most: a request for a new one beyond it is refused STREAM_LIMIT. */
  maxStreams?: number;
  /**
   * W13, the per-connection reading of "at most 4 updates per second per connection" (§6.2, §8), told: the venue's
   * update rate shared by every stream of the connection. A stream is then judged stale only after
   * `2 × held streams ÷ rate` seconds of silence (its turn comes every `streams ÷ rate` s), never sooner than
   * `staleAfterMs`. Unset: the reading is judged from the updates the connection carries (price-cadence.ts).
   */
  connectionPriceRate?: number;
  /** A price stamped more than this ahead of the local clock is refused and counted. */
  maxAheadMs: number;
  /** Unsubscribe frames sent for one release on a timer at most (then only a price under its tag sends one). */
  unsubscribeMaxSends?: number;
  /** How long an unconfirmed release is remembered after its last frame or price (its id, to end it if it streams). */
  releaseRetentionMs?: number;
}

const DEFAULT_UNSUBSCRIBE_MAX_SENDS = 4;
const DEFAULT_RELEASE_RETENTION_MS = 60 * 60_000;

const AHEAD_WARN_EVERY_MS = 60_000;
const READING_LOG_EVERY_MS = 60_000;

export type ReleaseRequest = StreamKeyFields & { requester: string };

/**
 * One price stream's actor with the registry's bookkeeping of it, in one object: a price reaches its
 * stream through one Map lookup and touches no other per-stream object on its way to the transition.
 */
class StreamCell extends Actor<PriceStreamState, PriceStreamEvent, PriceStreamEffect, PriceStreamEnv> {
  /** Requesters waiting for the venue's answer (settled by the actor's `answer` effect). */
  readonly waiters: StreamWaiter[] = [];

  constructor(
    readonly id: StreamIdentity,
    options: ActorOptions<PriceStreamState, PriceStreamEvent, PriceStreamEffect, PriceStreamEnv>,
  ) {
    super(options);
  }
}

/**
 * The price streams of the account: one actor per stream (price-stream-machine.ts), identical requests
 * sharing it by requester leases. This shell routes venue frames to the actors by tag with one Map lookup,
 * executes their effects (subscribe, unsubscribe, publish on `prices$`, answer waiting requesters), and
 * drives them with connection events and one sweep timer (staleness, lease expiry), so nothing is
 * scheduled per update.
 *
 * Tags are `g<hash of the stream's key>-<generation>`: a price under any tag this connector minted for a
 * key reaches that key's current stream, even one the venue held across a reconnect or a release
 * (issue 7, symptom 5); acks and stops must match the current generation exactly.
 */
export class PriceStreamRegistry {
  private readonly byKey = new Map<string, StreamCell>();
  private readonly byTag = new Map<string, StreamCell>();
  /** Older tags whose subscription the key's current stream adopted (granted under them after a release). */
  private readonly adoptedTags = new Map<string, StreamCell>();
  private readonly earlier = new EarlierSubscriptions();
  /**
   * Tags of earlier lives' subscriptions this life unsubscribed: never minted again in this life. A new stream of
   * the same key would otherwise get the same tag (generations count from 1 in each life), and the venue's
   * streamStop answering that unsubscribe — a stop carries a tag, no subscription id — stopped the new stream
   * before its own ack (CI, dialect alternate: `stream refused: UNSUBSCRIBED`).
   */
  private readonly endedTags = new Set<string>();
  /** Key hash → the key's current stream: prices under an older generation's tag still find it. */
  private readonly byHash = new Map<string, StreamCell>();
  private readonly feed: PriceFeed;
  /** `connector_price_updates_total`, counted in a plain number and handed over when read. */
  private readonly priceUpdates: LazyCount;
  private readonly log: JsonLogger;
  private readonly cancelSweep: Cancel;
  private generation = 0;
  /** Released subscriptions until the venue confirms them gone (an unsubscribe may be dropped, W9/W14). */
  private readonly releases: VenueReleases;
  private lastPriceWallAt: number | undefined;
  /** How far behind this host's clock the venue timestamp of the latest update taken was on arrival (ms). */
  private venueLagMs = 0;
  /** When that update arrived: the lag is reported only while this is within the stale period (else 0, none measured). */
  private venueLagAt: number | undefined;
  private expiredWarnedAt = Number.NEGATIVE_INFINITY;
  private staleCount = 0;
  /** Prices that reached a stream since the last sweep (W13: the cadence is judged from them). */
  private updatesSinceSweep = 0;
  /** Per sweep of the cadence window, oldest first: when it ended and the prices that reached streams in it. */
  private readonly cadenceWindow: { endedAt: number; updates: number }[] = [];
  private cadenceWindowStartedAt: number;
  private cadenceReading: CadenceReading = 'per-stream';
  private readingLoggedAt = Number.NEGATIVE_INFINITY;
  /** Arrival time of the price being handled (the actor runs synchronously inside `onFrame`). */
  private arrivedAt = 0;
  private readonly env: { -readonly [K in keyof PriceStreamEnv]: PriceStreamEnv[K] };
  private aheadWarnedAt = Number.NEGATIVE_INFINITY;
  private stepWarnedAt = Number.NEGATIVE_INFINITY;
  private readonly refusalLog = new LogThrottle();
  /** One function for every actor (sampled per event). */
  private readonly sampleEnvironment = (): PriceStreamEnv => this.environment();
  /** One function for every actor: the actor it is called for is the stream's cell. */
  private readonly executeEffect = (effect: PriceStreamEffect, self: ActorRef<PriceStreamEvent>): void =>
    this.execute(self as StreamCell, effect, self);

  readonly prices$: PriceFeed;

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly metrics: VenueMetrics,
    logger: JsonLogger,
    private readonly clock: VenueClock,
    private readonly options: PriceStreamOptions,
  ) {
    this.log = logger.child('PriceStreamRegistry');
    this.env = {
      now: 0,
      isOpen: false,
      staleAfterMs: options.staleAfterMs,
      subscribeTimeoutMs: options.subscribeTimeoutMs,
      maxAheadMs: options.maxAheadMs,
    };
    this.feed = new PriceFeed((error) =>
      this.log.error('price listener failed', { error: error instanceof Error ? error.message : String(error) }),
    );
    this.prices$ = this.feed;
    this.priceUpdates = new LazyCount(metrics.priceUpdates);
    this.releases = new VenueReleases(
      channel,
      limiter,
      metrics,
      clock,
      {
        confirmTimeoutMs: options.subscribeTimeoutMs,
        maxSends: options.unsubscribeMaxSends ?? DEFAULT_UNSUBSCRIBE_MAX_SENDS,
        retentionMs: options.releaseRetentionMs ?? DEFAULT_RELEASE_RETENTION_MS,
      },
      (subscriptionId) => this.earlier.released(subscriptionId),
    );
    channel.addFrameListener((message, arrivedAt) => this.onFrame(message, arrivedAt));
    channel.connection$.subscribe((event) => {
      if (event.up) this.releases.connectionUp();
      // the cadence is a connection's: a new one is judged afresh
      this.forgetCadence(clock.now());
      this.toAll({ type: event.up ? 'connectionUp' : 'connectionDown' });
    });
    const period = Math.max(10, Math.min(1_000, Math.floor(options.staleAfterMs / 4)));
    // at most the stale period, so a connection gone silent is judged on its silence alone in time
    const windowSweeps = Math.max(1, Math.floor(options.staleAfterMs / period));
    this.metrics.staleAfterSeconds.set(options.staleAfterMs / 1_000);
    this.metrics.watchVenueClockLag(() =>
      this.venueLagAt !== undefined && clock.now() - this.venueLagAt <= this.env.staleAfterMs ? this.venueLagMs : 0,
    );
    this.cadenceWindowStartedAt = clock.now();
    let lastSweepAt = clock.now();
    this.cancelSweep = clock.setInterval(() => {
      const now = clock.now();
      const paused = now - lastSweepAt > 3 * period;
      lastSweepAt = now;
      this.releases.sweep();
      // This process was itself stopped (SIGSTOP, a long pause): the renewals that came meanwhile wait in its
      // socket, read after this timer — one round later, leases are judged on them (outside tester: every
      // lease expired on waking, `stopped` LEASE_EXPIRED, then live again).
      if (paused) {
        this.forgetCadence(now);
        return;
      }
      this.env.staleAfterMs = this.staleAfterMs(now, windowSweeps);
      this.toAll({ type: 'sweep' });
    }, period);
  }

  /**
   * Granted subscriptions are remembered in `ledger` from now on; `leftovers` (tag → id): those an earlier life
   * of this connector left remembered — ended if they stream, adopted if this life's stream is held under one.
   */
  useSubscriptionLedger(ledger: SubscriptionLedger, leftovers: ReadonlyMap<string, string>): void {
    this.earlier.use(ledger, leftovers);
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
    const existing = this.byKey.get(key);
    if (existing === undefined) {
      const refusal = this.refusalOfNewStream();
      if (refusal !== undefined) return Promise.resolve(refusal);
    }
    const cell = existing ?? this.create(key, req);
    const { requester } = req;
    // Held, or a renewal of a lease still valid (the stream is being re-subscribed after a reconnect): the
    // lease is extended at once. A renewal that waited for the venue and timed out would drop a valid lease.
    const held = cell.state.leases.get(requester);
    if (cell.state.venue === 'held' || (held !== undefined && held > this.clock.now())) {
      cell.send({ type: 'acquire', requester, leaseExpiresAt, waits: false });
      return Promise.resolve({ ok: true, leaseExpiresAt });
    }
    return new Promise<AcquireResult>((resolve) => {
      let settled = false;
      const waiter: StreamWaiter = {
        requester,
        leaseExpiresAt,
        settle: (result) => {
          if (settled) return;
          settled = true;
          cancel();
          resolve(result);
        },
      };
      const cancel = this.clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        const index = cell.waiters.indexOf(waiter);
        if (index >= 0) cell.waiters.splice(index, 1);
        cell.send({ type: 'waiterGone', requester });
        resolve(
          this.channel.isOpen
            ? { ok: false, code: 'TIMEOUT', message: 'the venue did not acknowledge the subscription in time' }
            : { ok: false, code: 'NOT_CONNECTED', message: 'the venue session is not open; ask again later' },
        );
      }, this.options.subscribeTimeoutMs);
      cell.waiters.push(waiter);
      cell.send({ type: 'acquire', requester, leaseExpiresAt, waits: true });
    });
  }

  /**
   * Why a new stream cannot be asked for now, if it cannot: this connector holds its maximum, or more subscribes
   * already wait for the venue's message budget than can leave before this one would time out (outside tester:
   * 500 requests at once queued for 25 s, most timed out, and orders waited behind them). Refused at once, the
   * requester asks again later; no frame is queued for it.
   */
  private refusalOfNewStream(): AcquireResult | undefined {
    const max = this.options.maxStreams;
    if (max !== undefined && this.byKey.size >= max) {
      return {
        ok: false,
        code: GatewayErrorCode.StreamLimit,
        message: `this connector holds its maximum of ${max} price streams (VENUE_MAX_STREAMS); release some first`,
      };
    }
    const queued = this.limiter.othersQueued;
    // a fifth of the subscribe timeout is left for the venue's answer to the last one queued
    if (queued >= this.limiter.othersSendableWithin(this.options.subscribeTimeoutMs * 0.8)) {
      return {
        ok: false,
        code: GatewayErrorCode.Busy,
        message: `${queued} subscriptions wait for the venue's message budget; ask again in a few seconds`,
      };
    }
    return undefined;
  }

  release(req: ReleaseRequest): void {
    let key: string;
    try {
      key = streamKey(req);
    } catch {
      return;
    }
    this.byKey.get(key)?.send({ type: 'release', requester: req.requester });
  }

  counts(): { live: number; stale: number; pending: number } {
    let live = 0;
    let stale = 0;
    let pending = 0;
    for (const actor of this.byKey.values()) {
      const { venue, status } = actor.state;
      if (venue !== 'held') pending++;
      else if (status === 'stale') stale++;
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
    for (const actor of this.byKey.values()) if (actor.state.venue === 'held') return true;
    return false;
  }

  /** The actor's state of a stream, for diagnostics and tests. */
  stateOf(req: StreamKeyFields): PriceStreamState | undefined {
    return this.byKey.get(streamKey(req))?.state;
  }

  close(): void {
    this.cancelSweep();
    this.releases.clear();
    this.toAll({ type: 'shutdown' });
    this.feed.end();
  }

  // ------------------------------------------------------------------ venue frames

  private onFrame(message: ServiceMessage, arrivedAt: number): void {
    switch (message.messageType) {
      case 'pricestream': {
        // Hot path: one Map lookup (a held older generation's tag: a second one).
        const cell =
          message.tag === undefined ? undefined : (this.byTag.get(message.tag) ?? this.ofOtherTag(message.tag));
        if (cell === undefined) {
          this.metrics.framesRejected.inc({ reason: 'unknown_tag' });
          if (message.tag !== undefined) this.endLeftover(message.tag);
          return;
        }
        this.arrivedAt = arrivedAt;
        this.updatesSinceSweep += 1;
        cell.send({ type: 'price', update: message });
        return;
      }
      case 'subscribe': {
        const cell = message.tag === undefined ? undefined : this.byTag.get(message.tag);
        if (cell === undefined) {
          if (!message.success || !message.subscriptionId) return;
          // Granted under an older tag while the key's current stream holds no id of its own (released and
          // asked for again meanwhile): the subscription is that stream's, whose own subscribe the venue will
          // answer "already held". Otherwise interest vanished in flight: leave no orphan at the venue.
          const adopter = message.tag === undefined ? undefined : this.adopter(message.tag);
          if (adopter !== undefined && message.tag !== undefined) {
            adopter.send({ type: 'adopt', subscriptionId: message.subscriptionId });
            this.adoptedTags.set(message.tag, adopter);
            this.earlier.granted(message.tag, message.subscriptionId);
          } else this.unsubscribeAtVenue(message.subscriptionId, message.tag);
          return;
        }
        if (message.success && message.subscriptionId) this.earlier.granted(cell.id.tag, message.subscriptionId);
        else if (!message.success && message.code === ALREADY_HELD) {
          // held under this very tag by an earlier life of this connector (the same key, the same generation)
          const earlier = this.earlier.heldFromEarlier(cell.id.tag);
          if (earlier !== undefined && cell.state.subscriptionId === undefined) {
            cell.send({ type: 'adopt', subscriptionId: earlier });
          }
        }
        cell.send({
          type: 'ack',
          success: message.success,
          code: message.code ?? '',
          subscriptionId: message.subscriptionId || undefined,
          message: message.message ?? '',
        });
        return;
      }
      case 'unsubscribe': {
        // The venue ended a subscription we released (W10: this reply, a streamStop, or both, in either order).
        const tag = this.releases.confirm(message.subscriptionId, message.tag);
        const fed = tag === undefined ? undefined : this.fedBy(tag);
        fed?.send({ type: 'streamStop', code: 'UNSUBSCRIBED', message: 'the subscription it streamed was ended' });
        return;
      }
      case 'streamStop': {
        if (message.tag !== undefined) this.releases.confirm(undefined, message.tag);
        const cell = message.tag === undefined ? undefined : this.stoppedBy(message.tag);
        if (cell === undefined) return; // an older generation's stop (e.g. answering our unsubscribe)
        this.log.warn('venue stopped a stream', {
          instrument: cell.id.instrument,
          tenor: cell.id.tenor,
          code: message.code,
        });
        this.earlier.stopped(message.tag ?? '');
        cell.send({ type: 'streamStop', code: message.code ?? '', message: message.message ?? '' });
        return;
      }
      default:
        return;
    }
  }

  /**
   * The stream a venue's stop under `tag` ends: the tag's own; or the key's current stream when it streams that
   * older subscription — adopted, or held without an id of its own ("already held"). Never a stream still
   * waiting for its first acknowledgement (outside tester: released and asked again at once, the old
   * subscription's stop — answering our unsubscribe — stopped the new stream).
   */
  private stoppedBy(tag: string): StreamCell | undefined {
    return this.byTag.get(tag) ?? this.adoptedTags.get(tag) ?? this.fedBy(tag);
  }

  /**
   * A price under a tag that is not a current stream's own: a released subscription still streaming is ended
   * again when overdue (venue-release.ts); the price goes on to the key's current stream, if any.
   */
  private ofOtherTag(tag: string): StreamCell | undefined {
    this.releases.onPrice(tag);
    return this.ofOlderTag(tag);
  }

  /** The key's current stream when it streams the older subscription under `tag` (held, no id of its own). */
  private fedBy(tag: string): StreamCell | undefined {
    const current = this.ofOlderTag(tag);
    return current?.state.venue === 'held' && current.state.subscriptionId === undefined ? current : undefined;
  }

  /** The current stream of an older tag's key when it streams that older subscription ("already held", no id of its own). */
  private adopter(tag: string): StreamCell | undefined {
    const cell = this.ofOlderTag(tag);
    return cell !== undefined && cell.state.subscriptionId === undefined ? cell : undefined;
  }

  private ofOlderTag(tag: string): StreamCell | undefined {
    const dash = tag.lastIndexOf('-');
    return dash > 0 ? this.byHash.get(tag.slice(0, dash)) : undefined;
  }

  // ------------------------------------------------------------------ the actors

  private create(key: string, req: StreamKeyFields): StreamCell {
    const hash = `g${createHash('sha256').update(key).digest('base64url').slice(0, 12)}`;
    let tag: string;
    do tag = `${hash}-${(++this.generation).toString(36)}`;
    while (this.endedTags.has(tag));
    const id: StreamIdentity = {
      key,
      tag,
      accountGroup: req.accountGroup,
      instrument: req.instrument,
      tenor: req.tenor,
      currency: req.currency,
      quantity: req.quantity,
    };
    const cell = new StreamCell(id, {
      name: `price-stream:${id.tag}`,
      initial: newPriceStream(id, this.clock.now()),
      transition: priceStreamTransition,
      environment: this.sampleEnvironment,
      execute: this.executeEffect,
      onError: (error) =>
        this.log.error('price stream actor failed', {
          tag: id.tag,
          error: error instanceof Error ? error.message : String(error),
        }),
    });
    this.byKey.set(key, cell);
    this.byTag.set(id.tag, cell);
    this.byHash.set(hash, cell);
    return cell;
  }

  private execute(cell: StreamCell, effect: PriceStreamEffect, self: ActorRef<PriceStreamEvent>): void {
    switch (effect.type) {
      case 'publish':
        this.publish(effect.price);
        return;
      case 'outOfOrder':
        this.metrics.outOfOrderDropped.inc();
        return;
      case 'clockStepBack':
        this.metrics.clockStepsBack.inc();
        if (this.env.now - this.stepWarnedAt >= AHEAD_WARN_EVERY_MS) {
          this.stepWarnedAt = this.env.now;
          this.log.warn("venue clock stepped back; the stream's order starts again", {
            tag: cell.id.tag,
            stepMs: effect.stepMs,
            detail: 'a price older than the newest by more than PRICE_STALE_AFTER_MS was taken (said once a minute)',
          });
        }
        return;
      case 'aheadOfClock':
        this.metrics.framesRejected.inc({ reason: 'timestamp_ahead' });
        if (this.env.now - this.aheadWarnedAt >= AHEAD_WARN_EVERY_MS) {
          this.aheadWarnedAt = this.env.now;
          this.log.warn('venue frame rejected', {
            reason: 'timestamp_ahead',
            detail: `price stamped more than ${this.env.maxAheadMs} ms ahead of this host's clock (said once a minute)`,
            messageType: 'pricestream',
          });
        }
        return;
      case 'expiredOnArrival':
        this.venueLagMs = effect.lagMs;
        this.venueLagAt = this.env.now;
        this.metrics.pricesExpiredOnArrival.inc();
        if (this.env.now - this.expiredWarnedAt >= AHEAD_WARN_EVERY_MS) {
          this.expiredWarnedAt = this.env.now;
          this.log.warn("venue price already past its quote's life on arrival: published stale, never live", {
            tag: cell.id.tag,
            lagMs: effect.lagMs,
            detail:
              "the venue's clock is behind this host's by about lagMs (said once a minute); runbook GatewayVenueClockBehind",
          });
        }
        return;
      case 'subscribe':
        this.subscribeAtVenue(cell, effect.attempt, self);
        return;
      case 'unsubscribe':
        this.unsubscribeAtVenue(effect.subscriptionId);
        return;
      case 'answer':
        for (const waiter of cell.waiters.splice(0)) {
          waiter.settle(
            effect.ok
              ? { ok: true, leaseExpiresAt: waiter.leaseExpiresAt }
              : { ok: false, code: effect.code, message: effect.message },
          );
        }
        return;
      case 'staleChanged':
        this.staleCount += effect.delta;
        this.metrics.staleStreams.set(this.staleCount);
        return;
      case 'subscribeRefused': {
        this.metrics.countSubscribeFailure(effect.code);
        // a strategy may ask again and again for what the venue refuses: one line a second per code
        const fields = this.refusalLog.pass(effect.code, {
          instrument: cell.id.instrument,
          tenor: cell.id.tenor,
          currency: cell.id.currency,
          quantity: cell.id.quantity,
          accountGroup: cell.id.accountGroup,
          code: effect.code,
        });
        if (fields !== undefined) this.log.warn('venue refused a subscription', fields);
        return;
      }
      case 'removed':
        this.forget(cell);
        return;
    }
  }

  private publish(price: PriceMessage): void {
    if (price.status === 'live') {
      this.lastPriceWallAt = this.env.now; // sampled for this event
      this.venueLagMs = this.env.now - (price.venueTimestamp ?? this.env.now);
      this.venueLagAt = this.env.now;
      this.priceUpdates.inc();
      this.metrics.priceHopSeconds.observe((performance.now() - this.arrivedAt) / 1000);
    }
    this.feed.emit(price);
  }

  private subscribeAtVenue(cell: StreamCell, attempt: number, self: ActorRef<PriceStreamEvent>): void {
    const wanted = () => cell.state.venue === 'subscribing' && cell.state.attempt === attempt;
    void this.limiter.acquire('subscribe', wanted).then(() => {
      if (!wanted()) return; // a newer attempt, or stopped: dropped from the queue without a frame
      const { id } = cell;
      const sent = this.channel.send({
        messageType: 'subscribe',
        instrument: id.instrument,
        quantity: id.quantity,
        currency: id.currency,
        accountGrpUuid: id.accountGroup,
        tenor: id.tenor,
        tag: id.tag,
      });
      self.send({ type: 'subscribeSent', attempt, sent });
    });
  }

  /**
   * Unsubscribed until the venue confirms it (venue-releases.ts): sent again when unanswered, or when prices still
   * come under its tag; one that cannot leave (no connection) is sent on the next one — a venue that keeps
   * subscriptions across a reconnect would otherwise stream it, unreleasable, for ever; one that dropped them
   * ignores it.
   */
  private unsubscribeAtVenue(subscriptionId: string, tag?: string): void {
    this.releases.release(subscriptionId, tag ?? this.earlier.tagOf(subscriptionId));
  }

  /** A price under a tag no stream of this life knows: an earlier life's subscription still streaming is ended. */
  private endLeftover(tag: string): void {
    const subscriptionId = this.earlier.leftoverStreaming(tag);
    if (subscriptionId === undefined) return;
    this.log.info('a subscription of an earlier life of this connector streams on at the venue: unsubscribed');
    this.metrics.leftoverSubscriptionsEnded.inc();
    this.endedTags.add(tag);
    this.unsubscribeAtVenue(subscriptionId, tag);
  }

  private forget(cell: StreamCell): void {
    if (this.byKey.get(cell.id.key) === cell) this.byKey.delete(cell.id.key);
    this.byTag.delete(cell.id.tag);
    for (const [tag, adopter] of this.adoptedTags) if (adopter === cell) this.adoptedTags.delete(tag);
    const hash = cell.id.tag.slice(0, cell.id.tag.lastIndexOf('-'));
    if (this.byHash.get(hash) === cell) this.byHash.delete(hash);
  }

  /** Sampled per event; one object reused (a transition never keeps its env), so a price allocates none. */
  private environment(): PriceStreamEnv {
    const env = this.env;
    env.now = this.clock.now();
    env.isOpen = this.channel.isOpen;
    return env;
  }

  /**
   * The silence after which a stream is stale (W13, price-cadence.ts): `staleAfterMs`, or stretched to two turns
   * when the connection's streams share the venue's rate — told, or seen in the last `windowSweeps` sweeps.
   */
  private staleAfterMs(now: number, windowSweeps: number): number {
    const window = this.cadenceWindow;
    window.push({ endedAt: now, updates: this.updatesSinceSweep });
    this.updatesSinceSweep = 0;
    while (window.length > windowSweeps) {
      const oldest = window.shift();
      if (oldest !== undefined) this.cadenceWindowStartedAt = oldest.endedAt;
    }
    const startedAt = this.cadenceWindowStartedAt;
    let updates = 0;
    for (const sweep of window) updates += sweep.updates;
    let heldStreams = 0;
    let streamsHeard = 0;
    for (const cell of this.byKey.values()) {
      const { venue, status, lastUpdateAt } = cell.state;
      if (venue !== 'held') continue;
      heldStreams += 1;
      if (status === 'live' && lastUpdateAt > startedAt) streamsHeard += 1;
    }
    const judged = judgeStaleness({ heldStreams, windowMs: now - startedAt, updates, streamsHeard }, this.options);
    this.metrics.staleAfterSeconds.set(judged.staleAfterMs / 1_000);
    if (judged.reading !== this.cadenceReading) this.readingChanged(judged.reading, judged.staleAfterMs, now);
    return judged.staleAfterMs;
  }

  /** Said when the judged reading changes, at most once a minute (a connection at the boundary may swing). */
  private readingChanged(reading: CadenceReading, staleAfterMs: number, now: number): void {
    this.cadenceReading = reading;
    if (now - this.readingLoggedAt < READING_LOG_EVERY_MS) return;
    this.readingLoggedAt = now;
    this.log.info(
      reading === 'per-connection'
        ? "the venue's price updates are shared by the connection's streams (W13): a stream is stale after two turns"
        : 'each price stream has a cadence of its own (W13): a stream is stale after PRICE_STALE_AFTER_MS',
      { staleAfterMs },
    );
  }

  /** A new connection, or this process paused: what the window saw says nothing of the cadence from now on. */
  private forgetCadence(now: number): void {
    this.cadenceWindow.length = 0;
    this.cadenceWindowStartedAt = now;
    this.updatesSinceSweep = 0;
  }

  private toAll(event: PriceStreamEvent): void {
    for (const cell of [...this.byKey.values()]) cell.send(event);
  }
}

/** Identical requests share one key: the size is normalised (`0.50` ≡ `0.5`). */
export function streamKey(req: StreamKeyFields): string {
  return `${req.accountGroup}|${req.instrument}|${req.tenor}|${req.currency}|${sizeToken(req.quantity)}`;
}

/**
 * Prices as an RxJS Observable (docs/nats-contract.md "Prices"). Subscribing asks the connector for the stream
 * (`stream.subscribe`), listens on the granted subject, reads the subject's last value at once (so a late
 * joiner starts with the last price, not the next one; a stored `stopped` is skipped, as the grant just given
 * supersedes it; a stored `live` older than `silentStaleMs` comes as `stale`: nobody kept it fresh), renews the lease by itself every half lease, and marks a quote expired when its
 * `quoteExpiresAt` passes without a newer one. A live price is repeated as stale when the connector is not
 * heard (neither the stream nor its status for `silentStaleMs`, a renewal unanswered, this client's NATS
 * connection lost): a hung or unreachable connector never says so itself. Unsubscribing stops renewing and releases the interest: the
 * client's lease on the stream, once no other watch of it remains (the connector keeps one lease per requester
 * and stream: stream-leases.ts). A refusal (a venue code, `NOT_CONNECTED`, no connector) is the Observable's
 * error, as a `GatewayError`.
 */
import { Observable, type Subscriber } from 'rxjs';
import type { Subscription as NatsSubscription } from '@nats-io/transport-node';
import { DEFAULT_LEASE_SECONDS, type PriceMessage, type StreamGranted, type StreamRequest } from '#contracts';
import { gatewayRequest, type ClientContext } from './client-context.js';
import { ClientErrorCode, GatewayError } from './gateway-error.js';
import { asPriceMessage, heldLastValue, msUntilExpiry, priceUpdate, type PriceUpdate } from './price-update.js';
import { StreamLeases } from './stream-leases.js';

/** Which stream: everything of a `StreamRequest` but who holds it (the client) and the lease. */
export type PriceRequest = Omit<StreamRequest, 'requester' | 'leaseSeconds'>;

export interface PriceOptions {
  /** Lease asked for (5–3600 s, default 30); renewed every half lease. */
  leaseSeconds?: number;
  /**
   * A live price is repeated as stale once neither its stream nor the connector's status has been heard this
   * long (1,000–600,000 ms, default 12,000 — the execution app's `PRICE_SILENT_STALE_MS`): a hung or cut-off
   * connector never says so itself. Also at once when this client loses its NATS connection.
   */
  silentStaleMs?: number;
}

/** The default of `PriceOptions.silentStaleMs`: the execution app's `PRICE_SILENT_STALE_MS`. */
export const DEFAULT_SILENT_STALE_MS = 12_000;
/** How often silence is looked for. */
const SILENCE_CHECK_MS = 500;
/** After a renewal that failed, the next one (not the next half lease). */
const RENEW_RETRY_MS = 2_000;

export class PricesApi {
  private readonly streamOf = new Map<string, Promise<string | undefined>>();
  private readonly feeds = new Set<PriceFeed>();
  /** This client's leases, one per stream whatever the number of watches (stream-leases.ts). */
  private readonly leases: StreamLeases;
  /** When the connector's status was last heard: a sign of life while a stream is quiet (0: not listened to). */
  private statusHeardAt = 0;
  private statusSub: NatsSubscription | undefined;
  private silenceCheck: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly context: ClientContext) {
    void this.followConnection();
    this.leases = new StreamLeases({
      subscribe: (request) => gatewayRequest<StreamGranted>(context, context.subjects.streamSubscribe, request),
      release: async (subject) => {
        if (context.nc.isClosed()) return;
        await gatewayRequest(context, context.subjects.streamRelease, { subject, requester: context.requester });
      },
    });
  }

  /** Live prices of one stream, starting with its last value when there is one. */
  watch(request: PriceRequest, options: PriceOptions = {}): Observable<PriceUpdate> {
    const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 5 || leaseSeconds > 3600) {
      throw new GatewayError(ClientErrorCode.BadArgument, 'leaseSeconds must be an integer from 5 to 3600');
    }
    const silentStaleMs = options.silentStaleMs ?? DEFAULT_SILENT_STALE_MS;
    if (!Number.isInteger(silentStaleMs) || silentStaleMs < 1_000 || silentStaleMs > 600_000) {
      throw new GatewayError(ClientErrorCode.BadArgument, 'silentStaleMs must be an integer from 1000 to 600000');
    }
    return new Observable<PriceUpdate>((subscriber) => {
      const feed = new PriceFeed(this.context, subscriber, this.leases, silentStaleMs, (subject) =>
        this.lastStored(subject),
      );
      this.feeds.add(feed);
      this.listenForLife();
      void feed.start({ ...request, requester: this.context.requester, leaseSeconds });
      return () => {
        this.feeds.delete(feed);
        feed.stop();
        if (this.feeds.size === 0) this.stopListening();
      };
    });
  }

  /** While any price is watched: the connector's status heard, and each feed's silence looked for. */
  private listenForLife(): void {
    if (this.statusSub !== undefined || this.context.nc.isClosed()) return;
    this.statusHeardAt = this.context.now();
    this.statusSub = this.context.nc.subscribe(this.context.subjects.connectorStatus, {
      callback: (error) => {
        if (error === null) this.statusHeardAt = this.context.now();
      },
    });
    this.silenceCheck = setInterval(() => {
      const now = this.context.now();
      for (const feed of this.feeds) feed.checkSilence(this.statusHeardAt, now);
    }, SILENCE_CHECK_MS);
    this.silenceCheck.unref?.();
  }

  private stopListening(): void {
    clearInterval(this.silenceCheck);
    this.silenceCheck = undefined;
    this.statusSub?.unsubscribe();
    this.statusSub = undefined;
  }

  /** This client's NATS connection lost: nothing it shows can be known live any more. */
  private async followConnection(): Promise<void> {
    try {
      for await (const status of this.context.nc.status()) {
        if (status.type === 'disconnect') for (const feed of this.feeds) feed.connectorLost();
        // back: the lease renewed at once (outside tester: a lease lapsed in a long outage stayed stale until
        // the next half-lease tick, up to 15 s after everything else was back)
        if (status.type === 'reconnect') for (const feed of this.feeds) feed.renewNow();
      }
    } catch {
      // the connection closed: its status ends
    }
  }

  /** Completes every price Observable of this client and releases its leases (the client is closing). */
  completeAll(): void {
    for (const feed of [...this.feeds]) feed.complete();
    this.stopListening();
  }

  /** The last price stored for a price subject (undefined: none yet, or aged out). */
  async lastPrice(subject: string): Promise<PriceMessage | undefined> {
    return (await this.lastStored(subject))?.price;
  }

  /** The last price stored for a price subject, with when the stream stored it (epoch ms). */
  private async lastStored(subject: string): Promise<StoredPrice | undefined> {
    const stream = await this.priceStream(subject);
    if (stream === undefined) return undefined;
    const stored = await this.context.jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
    const price = stored === null ? undefined : asPriceMessage(stored.json<unknown>());
    return price === undefined || stored === null ? undefined : { price, storedAt: stored.time.getTime() };
  }

  /** The stream capturing a price subject: looked up, not assumed (several accounts may share one). */
  private priceStream(subject: string): Promise<string | undefined> {
    let found = this.streamOf.get(subject);
    if (found === undefined) {
      found = this.context.jsm.streams.find(subject).then(
        (name) => name,
        () => undefined,
      );
      this.streamOf.set(subject, found);
      void found.then((name) => name === undefined && this.streamOf.delete(subject));
    }
    return found;
  }
}

interface StoredPrice {
  price: PriceMessage;
  /** When the price stream stored it (epoch ms, the server's clock). */
  storedAt: number;
}

/** One subscriber's stream: grant, subscription, last value, lease renewal, expiry watch, release. */
class PriceFeed {
  private subject: string | undefined;
  private leaseSeconds: number | undefined;
  private sub: NatsSubscription | undefined;
  private renewal: ReturnType<typeof setInterval> | undefined;
  private expiry: ReturnType<typeof setTimeout> | undefined;
  private sawUpdate = false;
  private stopped = false;
  /** The last price emitted, repeated as `stale` when the connector no longer answers a renewal. */
  private last: PriceMessage | undefined;
  /** When this stream was last heard (its grant, then each message on it). */
  private heardAt = 0;
  private renew: (() => void) | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly context: ClientContext,
    private readonly out: Subscriber<PriceUpdate>,
    private readonly leases: StreamLeases,
    private readonly silentStaleMs: number,
    private readonly lastPrice: (subject: string) => Promise<StoredPrice | undefined>,
  ) {}

  async start(request: StreamRequest): Promise<void> {
    try {
      const grant = await this.leases.hold(request);
      if (this.stopped) return this.leases.letGo(grant.subject, request.leaseSeconds);
      this.subject = grant.subject;
      this.leaseSeconds = request.leaseSeconds;
      this.heardAt = this.context.now();
      this.sub = this.context.nc.subscribe(grant.subject, {
        callback: (error, msg) => {
          if (error !== null) return;
          const price = safeJson(() => asPriceMessage(msg.json<unknown>()));
          if (price === undefined) return;
          this.heardAt = this.context.now();
          this.sawUpdate = true;
          this.emit(price, false);
        },
      });
      const renewEveryMs = ((request.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000) / 2;
      // A renewal the connector does not answer (killed: it published no `stopped`) means nobody keeps this
      // price fresh: the last one is repeated as stale, never left looking live until its quote expires.
      const renew = (): void => {
        const askedAt = this.context.now();
        clearTimeout(this.retry);
        this.leases.renew(request, grant.subject).catch(() => {
          // an answer that fails late (a hung connector that came back) says nothing of prices heard since
          if (this.heardAt <= askedAt) this.connectorLost();
          // asked again soon, not at the next half lease: the stream is back within seconds of the connector
          if (!this.stopped) this.retry = setTimeout(renew, RENEW_RETRY_MS);
        });
      };
      this.renewal = setInterval(renew, renewEveryMs);
      this.renew = renew;
      const stored = await this.lastPrice(grant.subject);
      // An update that arrived meanwhile is newer than the stored one: keep the order. A stored `stopped`
      // describes the stream's earlier life (released, connector stopped): the grant just given supersedes it.
      // A stored `live` nobody kept fresh for `silentStaleMs` (its connector died without a word) is shown stale.
      const last = stored && heldLastValue(stored.price, stored.storedAt, this.context.now(), this.silentStaleMs);
      if (last !== undefined && last.status !== 'stopped' && !this.sawUpdate && !this.stopped) this.emit(last, true);
    } catch (error) {
      this.stop();
      this.out.error(error);
    }
  }

  complete(): void {
    this.stop();
    this.out.complete();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.renewal);
    clearTimeout(this.expiry);
    clearTimeout(this.retry);
    this.sub?.unsubscribe();
    // the lease is released when no other feed of this client holds the stream
    if (this.subject !== undefined) this.leases.letGo(this.subject, this.leaseSeconds);
  }

  /** Renews the lease now (this client's NATS connection is back). */
  renewNow(): void {
    if (!this.stopped) this.renew?.();
  }

  /** Neither this stream nor the connector's status heard for `silentStaleMs`: the last live price is stale. */
  checkSilence(statusHeardAt: number, now: number): void {
    if (this.heardAt === 0) return;
    if (now - Math.max(this.heardAt, statusHeardAt) >= this.silentStaleMs) this.connectorLost();
  }

  connectorLost(): void {
    const last = this.last;
    if (last === undefined || last.status !== 'live') return;
    this.emit({ ...last, status: 'stale' }, false);
  }

  private emit(price: PriceMessage, fromLastValue: boolean): void {
    if (this.stopped || this.subject === undefined) return;
    this.last = price;
    const update = priceUpdate(this.subject, price, this.context.now(), fromLastValue);
    clearTimeout(this.expiry);
    const wait = msUntilExpiry(update);
    if (wait !== undefined) {
      const subject = this.subject;
      this.expiry = setTimeout(() => {
        const at = Math.max(this.context.now(), price.quoteExpiresAt ?? 0);
        if (!this.stopped) this.out.next(priceUpdate(subject, price, at, fromLastValue));
      }, wait);
    }
    this.out.next(update);
  }
}

function safeJson<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

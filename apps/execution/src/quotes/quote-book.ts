/**
 * The prices the execution app knows: every price the connector publishes (core subscription on
 * `{prefix}.price.>`), the latest per stream subject and every quoteId still within its life, so an order
 * by quoteId finds its quote and an order by quote request takes the freshest live quote of its stream.
 *
 * A quote is traded only while its stream is live *now*: the status of the stream's latest message, not of the
 * message that carried the quote. A connector that dies (or is cut off from NATS) never says `stale`: a live
 * stream counts as stale here once neither it nor the connector (its status, every few seconds) has been heard
 * for `silentStaleMs`. While the connector is heard it says `stale` itself, on its own rule (which knows the
 * venue's cadence: a stream of a busy connection may be silent for longer).
 */
import type { PriceMessage, PriceStatus } from '#contracts';
import type { BusCore, BusSubscription } from '#bus';

export interface KnownQuote {
  subject: string;
  price: PriceMessage;
  /** Local time it arrived (ms). */
  receivedAt: number;
}

const MAX_QUOTES = 200_000;

export class QuoteBook {
  private readonly latest = new Map<string, KnownQuote>();
  private readonly byQuoteId = new Map<string, KnownQuote>();
  private readonly waiters = new Map<string, Array<(quote: KnownQuote) => void>>();
  private subscription: BusSubscription | undefined;

  constructor(
    private readonly core: BusCore,
    private readonly allPrices: string,
    private readonly quoteLifeMs: number,
    private readonly now: () => number,
    /** PRICE_SILENT_STALE_MS: above the connector's STATUS_INTERVAL_MS. */
    private readonly silentStaleMs: number,
    /** When the connector was last heard (its status), if ever. */
    private readonly connectorHeardAt: () => number | undefined = () => undefined,
  ) {}

  start(): void {
    this.subscription ??= this.core.subscribe(this.allPrices, (message) => {
      const price = message.json<PriceMessage>();
      if (price !== undefined && typeof price === 'object' && price !== null) this.take(message.subject, price);
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /**
   * Records a price (from the subscription, or read from the last-value stream with the time it was stored there).
   * Older updates are ignored.
   */
  take(subject: string, price: PriceMessage, receivedAt = this.now()): void {
    const known: KnownQuote = { subject, price, receivedAt };
    const current = this.latest.get(subject);
    const older =
      current !== undefined &&
      price.status === 'live' &&
      current.price.venueTimestamp !== undefined &&
      price.venueTimestamp !== undefined &&
      price.venueTimestamp < current.price.venueTimestamp;
    if (!older) this.latest.set(subject, known);
    if (price.status === 'live' && typeof price.quoteId === 'string') {
      if (this.byQuoteId.size >= MAX_QUOTES) this.prune();
      this.byQuoteId.set(price.quoteId, known);
      const waiting = this.waiters.get(subject);
      if (waiting !== undefined && !older) {
        this.waiters.delete(subject);
        for (const wake of waiting) wake(known);
      }
    }
  }

  /** The quote with this id, if seen on a price within its life. */
  quote(quoteId: string): KnownQuote | undefined {
    const known = this.byQuoteId.get(quoteId);
    if (known === undefined) return undefined;
    if (this.expiresAt(known) <= this.now()) {
      this.byQuoteId.delete(quoteId);
      return undefined;
    }
    return known;
  }

  /**
   * The status of the quote's stream now: its latest message's, and `stale` for a live stream when neither it nor
   * the connector has been heard for longer than `silentStaleMs` (nobody is left to say so).
   */
  streamStatus(known: KnownQuote): PriceStatus {
    const latest = this.latest.get(known.subject) ?? known;
    if (latest.price.status !== 'live') return latest.price.status;
    const heard = Math.max(latest.receivedAt, this.connectorHeardAt() ?? Number.NEGATIVE_INFINITY);
    return this.now() - heard > this.silentStaleMs ? 'stale' : 'live';
  }

  /** The latest message of a stream (live, stale or stopped). */
  latestOf(subject: string): KnownQuote | undefined {
    return this.latest.get(subject);
  }

  /** The next live quote on `subject`, or undefined after `timeoutMs`. */
  nextLive(subject: string, timeoutMs: number): Promise<KnownQuote | undefined> {
    return new Promise((resolve) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      const list = this.waiters.get(subject) ?? [];
      list.push((quote) => {
        if (done) return;
        clearTimeout(timer);
        resolve(quote);
      });
      this.waiters.set(subject, list);
    });
  }

  /** The earlier of the connector's `quoteExpiresAt` and venue timestamp + the configured quote life. */
  expiresAt(known: KnownQuote): number {
    const own = (known.price.venueTimestamp ?? known.receivedAt) + this.quoteLifeMs;
    const told = known.price.quoteExpiresAt;
    return typeof told === 'number' ? Math.min(told, own) : own;
  }

  get size(): number {
    return this.byQuoteId.size;
  }

  /** Drops quotes past their life (called when the index is full, and periodically). */
  prune(): void {
    const now = this.now();
    for (const [quoteId, known] of this.byQuoteId) {
      if (this.expiresAt(known) <= now) this.byQuoteId.delete(quoteId);
    }
    if (this.byQuoteId.size >= MAX_QUOTES) {
      // still full of live quotes: drop the oldest half (Map keeps insertion order)
      let drop = Math.floor(this.byQuoteId.size / 2);
      for (const quoteId of this.byQuoteId.keys()) {
        if (drop-- <= 0) break;
        this.byQuoteId.delete(quoteId);
      }
    }
  }
}

/**
 * The prices the execution app knows: every price the connector publishes (core subscription on
 * `{prefix}.price.>`), the latest per stream subject and every quoteId still within its life, so an order
 * by quoteId finds its quote and an order by quote request takes the freshest live quote of its stream.
 *
 * A quote is traded only while its stream is live *now*: the status of the stream's latest message, not of the
 * message that carried the quote. A connector that dies (or is cut off from NATS) never says `stale`: a live
 * stream counts as stale here once neither it nor the connector (its status, every few seconds) has been heard
 * for `silentStaleMs`. While the connector is heard it says `stale` itself, on its own rule (which knows the
 * venue's cadence: a stream of a busy connection may be silent for longer) — but only for what that connector
 * published: a live message heard before the connector's current life began (it restarted after dying without a
 * word, outside tester t2) is nobody's: its stream counts as stale until its next message, and its quote for good.
 *
 * It holds what is live, nothing more: a quote goes when its life ends, a stream (its latest message) once every
 * message taken on it is past its life — a stopped stream stays that long, so its held quotes read `stopped` —
 * and a waiter at its timeout. Each price drops a few expired entries from the oldest end (the maps are kept in
 * arrival order), and the whole book is swept every {@link QUOTE_SWEEP_MS} on the injected clock.
 */
import type { PriceMessage, PriceStatus } from '#contracts';
import type { BusCore, BusSubscription } from '#bus';
import type { Cancel, Clock } from '#actors';

export interface KnownQuote {
  subject: string;
  price: PriceMessage;
  /** Local time it arrived (ms). */
  receivedAt: number;
}

/** A stream's latest message, kept while any message taken on it (its quotes, its status) is within its life. */
interface StreamEntry {
  latest: KnownQuote;
  keepUntil: number;
}

/** A safety net only: the quotes within their life are far fewer (one per stream per update, for 10 minutes). */
const MAX_QUOTES = 200_000;
/**
 * Expired entries dropped per price taken, from the oldest end: more than the one a price adds, so the book
 * keeps up; few, so no price pays for a walk over the book.
 */
const EXPIRED_PER_PRICE = 4;
/** The whole book is swept this often (quotes that arrived out of expiry order, and a book no price reaches). */
export const QUOTE_SWEEP_MS = 60_000;
/**
 * Expired quote ids remembered at most (a safety net, like {@link MAX_QUOTES}): an order on one is refused
 * QUOTE_EXPIRED, not QUOTE_UNKNOWN (outside tester t3, F1). Each is an id and two numbers.
 */
const MAX_EXPIRED = 200_000;

/** A quote past its life: when it expired, and when the book forgets it (one quote life later). */
interface ExpiredQuote {
  expiresAt: number;
  forgetAt: number;
}

export class QuoteBook {
  /** Per price subject; in the order of their last message (the least recently heard first). */
  private readonly streams = new Map<string, StreamEntry>();
  /** In the order the quotes arrived: the oldest, first to expire, first. */
  private readonly byQuoteId = new Map<string, KnownQuote>();
  /** Quotes past their life, for one more quote life: in the order they expired here (forgetAt ascending). */
  private readonly expired = new Map<string, ExpiredQuote>();
  private readonly waiters = new Map<string, Set<(quote: KnownQuote) => void>>();
  private subscription: BusSubscription | undefined;
  private sweep: Cancel | undefined;

  constructor(
    private readonly core: BusCore,
    private readonly allPrices: string,
    private readonly quoteLifeMs: number,
    private readonly clock: Clock,
    /** PRICE_SILENT_STALE_MS: above the connector's STATUS_INTERVAL_MS. */
    private readonly silentStaleMs: number,
    /** When the connector was last heard (its status), if ever. */
    private readonly connectorHeardAt: () => number | undefined = () => undefined,
    /** Since when the connector's current life has been heard, when it replaced an earlier one heard here. */
    private readonly connectorLifeSince: () => number | undefined = () => undefined,
  ) {}

  start(): void {
    this.subscription ??= this.core.subscribe(this.allPrices, (message) => {
      const price = message.json<PriceMessage>();
      if (price !== undefined && typeof price === 'object' && price !== null) this.take(message.subject, price);
    });
    this.sweep ??= this.clock.setInterval(() => this.prune(), QUOTE_SWEEP_MS);
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.sweep?.();
    this.sweep = undefined;
  }

  /**
   * Records a price (from the subscription, or read from the last-value stream with the time it was stored there).
   * Older updates are ignored.
   */
  take(subject: string, price: PriceMessage, receivedAt = this.clock.now()): void {
    const now = this.clock.now();
    this.dropExpired(now, EXPIRED_PER_PRICE);
    const known: KnownQuote = { subject, price, receivedAt };
    const stream = this.streams.get(subject);
    const older =
      stream !== undefined &&
      price.status === 'live' &&
      stream.latest.price.venueTimestamp !== undefined &&
      price.venueTimestamp !== undefined &&
      price.venueTimestamp < stream.latest.price.venueTimestamp;
    // moved to the end: the map stays in the order streams were last heard
    this.streams.delete(subject);
    this.streams.set(subject, {
      latest: older ? stream.latest : known,
      keepUntil: Math.max(stream?.keepUntil ?? 0, this.expiresAt(known)),
    });
    // A quote first heard on a stale price already past its life (the connector's verdict on a venue clock that
    // lags, docs/spec-gaps.md W37): never tradable, but known — an order on it is refused QUOTE_EXPIRED.
    if (price.status !== 'live' && typeof price.quoteId === 'string' && !this.byQuoteId.has(price.quoteId)) {
      const expiresAt = this.expiresAt(known);
      if (expiresAt <= now) this.rememberExpired(price.quoteId, expiresAt, now);
    }
    if (price.status === 'live' && typeof price.quoteId === 'string') {
      if (this.byQuoteId.size >= MAX_QUOTES) this.dropOldestQuote();
      this.byQuoteId.set(price.quoteId, known);
      const waiting = this.waiters.get(subject);
      if (waiting !== undefined && !older) {
        this.waiters.delete(subject);
        for (const wake of waiting) wake(known);
      }
    }
  }

  /**
   * Records a price read back from the last-value stream (`storedAt`: when the stream stored it), unless it is a
   * live one nobody has refreshed for `silentStaleMs`: a running connector replaces its live price within that
   * time (a newer one, or `stale`), a dead one never does — even while a restarted connector is heard. Returns
   * whether it was taken.
   */
  takeStored(subject: string, price: PriceMessage, storedAt: number): boolean {
    if (price.status === 'live' && this.clock.now() - storedAt >= this.silentStaleMs) return false;
    this.take(subject, price, storedAt);
    return true;
  }

  /** The quote with this id, if seen on a price within its life. */
  quote(quoteId: string): KnownQuote | undefined {
    const known = this.byQuoteId.get(quoteId);
    if (known === undefined) return undefined;
    const now = this.clock.now();
    const expiresAt = this.expiresAt(known);
    if (expiresAt <= now) {
      this.byQuoteId.delete(quoteId);
      this.rememberExpired(quoteId, expiresAt, now);
      return undefined;
    }
    return known;
  }

  /**
   * When the quote with this id expired, if it was seen on a price and is past its life (remembered for one quote
   * life after it left the book, {@link MAX_EXPIRED} at most): it is known, only too old.
   */
  expiredAt(quoteId: string): number | undefined {
    const known = this.byQuoteId.get(quoteId);
    if (known !== undefined) {
      const expiresAt = this.expiresAt(known);
      return expiresAt <= this.clock.now() ? expiresAt : undefined;
    }
    const expired = this.expired.get(quoteId);
    return expired !== undefined && expired.forgetAt > this.clock.now() ? expired.expiresAt : undefined;
  }

  /**
   * The status of the quote's stream now: its latest message's, and `stale` for a live stream when neither it nor
   * the connector has been heard for longer than `silentStaleMs` (nobody is left to say so), or when the quote or
   * the stream's latest message came before the connector's current life (an earlier life's, left live when it died).
   */
  streamStatus(known: KnownQuote): PriceStatus {
    const latest = this.streams.get(known.subject)?.latest ?? known;
    if (latest.price.status !== 'live') return latest.price.status;
    // heard before the connector's current life: an earlier life's (it died without a word), never traded — even
    // once the new life streams again (outside tester t2: such a quote, 17–29 s old, executed)
    const lifeSince = this.connectorLifeSince();
    if (lifeSince !== undefined && (known.receivedAt < lifeSince || latest.receivedAt < lifeSince)) return 'stale';
    const heard = Math.max(latest.receivedAt, this.connectorHeardAt() ?? Number.NEGATIVE_INFINITY);
    return this.clock.now() - heard > this.silentStaleMs ? 'stale' : 'live';
  }

  /** The latest message of a stream (live, stale or stopped) while the stream's messages are within their life. */
  latestOf(subject: string): KnownQuote | undefined {
    return this.streams.get(subject)?.latest;
  }

  /** The next live quote on `subject`, or undefined after `timeoutMs` (the waiter is then forgotten). */
  nextLive(subject: string, timeoutMs: number): Promise<KnownQuote | undefined> {
    return new Promise((resolve) => {
      const waiting = this.waiters.get(subject) ?? new Set<(quote: KnownQuote) => void>();
      const wake = (quote: KnownQuote): void => {
        cancel();
        resolve(quote);
      };
      const cancel = this.clock.setTimeout(() => {
        waiting.delete(wake);
        if (waiting.size === 0 && this.waiters.get(subject) === waiting) this.waiters.delete(subject);
        resolve(undefined);
      }, timeoutMs);
      waiting.add(wake);
      this.waiters.set(subject, waiting);
    });
  }

  /** The earlier of the connector's `quoteExpiresAt` and venue timestamp + the configured quote life. */
  expiresAt(known: KnownQuote): number {
    const own = (known.price.venueTimestamp ?? known.receivedAt) + this.quoteLifeMs;
    const told = known.price.quoteExpiresAt;
    return typeof told === 'number' ? Math.min(told, own) : own;
  }

  /** What the book holds: quotes within their life, streams heard within one, subjects with a waiting order. */
  get counts(): { quotes: number; streams: number; waiting: number } {
    return { quotes: this.byQuoteId.size, streams: this.streams.size, waiting: this.waiters.size };
  }

  /** Expired quote ids remembered (so an order on one is refused QUOTE_EXPIRED). */
  get expiredRemembered(): number {
    return this.expired.size;
  }

  /** Drops every quote and stream past its life (every {@link QUOTE_SWEEP_MS}). */
  prune(): void {
    const now = this.clock.now();
    for (const [quoteId, known] of this.byQuoteId) {
      const expiresAt = this.expiresAt(known);
      if (expiresAt > now) continue;
      this.byQuoteId.delete(quoteId);
      this.rememberExpired(quoteId, expiresAt, now);
    }
    for (const [quoteId, expired] of this.expired) {
      if (expired.forgetAt > now) break; // in forgetAt order
      this.expired.delete(quoteId);
    }
    for (const [subject, stream] of this.streams) {
      if (stream.keepUntil <= now) this.streams.delete(subject);
    }
  }

  /**
   * Drops up to `limit` expired quotes and streams from the oldest end of each map, stopping at the first still
   * within its life (one that arrived out of order waits for the sweep).
   */
  private dropExpired(now: number, limit: number): void {
    for (let n = 0; n < limit; n++) {
      const oldest = this.byQuoteId.entries().next();
      if (oldest.done === true) break;
      const expiresAt = this.expiresAt(oldest.value[1]);
      if (expiresAt > now) break;
      this.byQuoteId.delete(oldest.value[0]);
      this.rememberExpired(oldest.value[0], expiresAt, now);
    }
    for (let n = 0; n < limit; n++) {
      const oldest = this.expired.entries().next();
      if (oldest.done === true || oldest.value[1].forgetAt > now) break;
      this.expired.delete(oldest.value[0]);
    }
    for (let n = 0; n < limit; n++) {
      const oldest = this.streams.entries().next();
      if (oldest.done === true || oldest.value[1].keepUntil > now) break;
      this.streams.delete(oldest.value[0]);
    }
  }

  /** Remembered until one quote life from now; full, the first remembered makes room (it is forgotten soonest). */
  private rememberExpired(quoteId: string, expiresAt: number, now: number): void {
    if (this.expired.has(quoteId)) return;
    if (this.expired.size >= MAX_EXPIRED) {
      const oldest = this.expired.keys().next();
      if (oldest.done !== true) this.expired.delete(oldest.value);
    }
    this.expired.set(quoteId, { expiresAt, forgetAt: now + this.quoteLifeMs });
  }

  /** Full of quotes within their life: the oldest (the first to expire) makes room. */
  private dropOldestQuote(): void {
    const oldest = this.byQuoteId.keys().next();
    if (oldest.done !== true) this.byQuoteId.delete(oldest.value);
  }
}

/**
 * Price streams the execution app itself needs (orders by quote request): asked of the connector with
 * `stream.subscribe` (requester `execution-{account}`), the lease renewed while the stream is used, and the
 * freshest live quote taken from the QuoteBook or, before the first update arrives, the last-value stream.
 */
import {
  DEFAULT_LEASE_SECONDS,
  ExecutionErrorCode,
  type PriceMessage,
  type PriceSubjectKey,
  type StreamReply,
  type Subjects,
} from '#contracts';
import type { BusCore, BusStreams } from '#bus';
import type { Cancel, Clock } from '#actors';
import type { KnownQuote, QuoteBook } from './quote-book.js';
import { streamRefusal, streamUnanswered, type QuoteRefusal } from './stream-refusal.js';

export interface StreamAsk {
  instrument: string;
  quantity: string;
  currency: string;
  tenor: string;
  accountGroup: string;
}

/** A live quote, or why there is none: `QUOTE_UNAVAILABLE` passes, `QUOTE_REFUSED` does not (stream-refusal.ts). */
export type FreshQuote =
  | { ok: true; quote: KnownQuote }
  | QuoteRefusal
  | { ok: false; code: typeof ExecutionErrorCode.QuoteRequestInvalid; message: string };

interface Held {
  request: StreamAsk;
  subject: string;
  leaseExpiresAt: number;
  lastUsed: number;
  /** When the connector was last asked for it (granted). */
  askedAt: number;
}

/** A stream unused this long is no longer renewed (its lease then lapses at the connector). */
const IDLE_MS = 10 * 60_000;
/**
 * A held stream with no usable quote is asked for again at most this often: a connector that restarted (its
 * streams gone with it) or stopped the stream has it again within about a second, not at the next renewal.
 */
const REASK_MS = 1_000;

export class PriceStreams {
  private readonly held = new Map<string, Held>();
  /** Quotes an order by quote request already took here: a quote executes once (§2.2 rule 4, W4), so take the next. */
  private readonly used = new Set<string>();
  private renewal: Cancel | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly core: BusCore,
    private readonly streams: BusStreams,
    private readonly book: QuoteBook,
    private readonly clock: Clock,
    private readonly options: {
      requester: string;
      requestTimeoutMs: number;
      quoteWaitMs: number;
      priceStream: () => string;
    },
  ) {}

  start(): void {
    this.renewal ??= this.clock.setInterval(() => void this.renew(), (DEFAULT_LEASE_SECONDS * 1_000) / 3);
  }

  stop(): void {
    this.renewal?.();
    this.renewal = undefined;
  }

  /** The freshest live quote of the stream, acquiring the stream through the connector when needed. */
  async freshest(ask: StreamAsk): Promise<FreshQuote> {
    const key: PriceSubjectKey = ask;
    let subject: string;
    try {
      subject = this.subjects.price(key);
    } catch (error) {
      return {
        ok: false,
        code: ExecutionErrorCode.QuoteRequestInvalid,
        message: error instanceof Error ? error.message : String(error),
      };
    }
    const now = this.clock.now();
    const held = this.held.get(subject);
    if (held !== undefined) held.lastUsed = now;
    const known = this.book.latestOf(subject);
    if (held !== undefined && this.usable(known)) return this.take(known);
    // No usable quote: the lease may be gone with a restarted connector, or the stream stopped — ask again.
    if (held === undefined || held.leaseExpiresAt <= now || now - held.askedAt >= REASK_MS) {
      const granted = await this.acquire(ask, subject);
      if (!granted.ok) return granted;
    }
    const current = this.book.latestOf(subject);
    if (this.usable(current)) return this.take(current);
    const stored = await this.streams
      .lastMessage<PriceMessage>(this.options.priceStream(), subject)
      .catch(() => undefined);
    // a live one nobody refreshed for PRICE_SILENT_STALE_MS is not taken (a connector that died left it)
    if (stored?.value.status === 'live' && this.book.takeStored(subject, stored.value, stored.storedAt)) {
      const taken = this.book.latestOf(subject);
      if (this.usable(taken)) return this.take(taken);
    }
    const deadline = now + this.options.quoteWaitMs;
    for (let left = deadline - this.clock.now(); left > 0; left = deadline - this.clock.now()) {
      const askedAt = this.held.get(subject)?.askedAt ?? 0;
      const reaskIn = askedAt + REASK_MS - this.clock.now();
      if (reaskIn <= 0) {
        // Still nothing: the connector may have restarted since it granted the stream (its streams gone).
        const granted = await this.acquire(ask, subject);
        if (!granted.ok) return granted;
        continue;
      }
      const next = await this.book.nextLive(subject, Math.min(left, reaskIn));
      if (next !== undefined && this.usable(next)) return this.take(next);
    }
    const last = this.book.latestOf(subject);
    return {
      ok: false,
      code: ExecutionErrorCode.QuoteUnavailable,
      // outside tester: "(last status live)" alone read like a fault — the quotes were there, each taken by an order
      message:
        `no unused live quote on the stream within ${this.options.quoteWaitMs} ms: each quote serves one order, and ` +
        `the stream's quotes were taken by other orders or none came (last status ${last?.price.status ?? 'none'}` +
        `${last?.price.code ? `, ${last.price.code}` : ''}); ask again`,
      values: { waitedMs: String(this.options.quoteWaitMs) },
    };
  }

  /** Live now (the stream not silent since: a dead connector says nothing), and not taken by an order here yet. */
  private usable(known: KnownQuote | undefined): known is KnownQuote {
    return (
      known?.price.status === 'live' &&
      known.price.quoteId !== undefined &&
      !this.used.has(known.price.quoteId) &&
      this.book.streamStatus(known) === 'live'
    );
  }

  private take(known: KnownQuote): FreshQuote {
    this.markUsed(known.price.quoteId as string);
    return { ok: true, quote: known };
  }

  /** A quote an accepted order executes on (by quoteId or by quote request): not offered again. */
  markUsed(quoteId: string): void {
    if (this.used.size >= 10_000) this.used.delete(this.used.values().next().value as string);
    this.used.add(quoteId);
  }

  private async acquire(ask: StreamAsk, subject: string): Promise<{ ok: true } | QuoteRefusal> {
    let reply: StreamReply;
    try {
      reply = await this.core.request<StreamReply>(
        this.subjects.streamSubscribe,
        { ...ask, requester: this.options.requester, leaseSeconds: DEFAULT_LEASE_SECONDS },
        this.options.requestTimeoutMs,
      );
    } catch (error) {
      return streamUnanswered(error);
    }
    // A refusal of the request itself (QUOTE_REFUSED) is told apart from one that passes (QUOTE_UNAVAILABLE).
    if (!reply.ok) return streamRefusal(reply.error);
    const now = this.clock.now();
    const lease = { request: ask, leaseExpiresAt: reply.leaseExpiresAt, lastUsed: now, askedAt: now };
    this.held.set(reply.subject, { ...lease, subject: reply.subject });
    if (reply.subject !== subject) this.held.set(subject, { ...lease, subject });
    return { ok: true };
  }

  private async renew(): Promise<void> {
    const now = this.clock.now();
    for (const [subject, held] of this.held) {
      if (now - held.lastUsed > IDLE_MS) {
        this.held.delete(subject);
        continue;
      }
      await this.acquire(held.request, subject).catch(() => undefined);
    }
  }
}

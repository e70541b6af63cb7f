/**
 * `exec.order.place`: validate → fail-closed gate → idempotency → quote → pre-trade risk → the intent in the
 * journal (durable), the key and the quote's size claimed (across instances) → reply `accepted` → the order's
 * actor publishes the command.
 * Nothing reaches the connector before the intent is durable; a refused request sends nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  ExecutionErrorCode,
  RiskCode,
  parsePlaceOrder,
  plainDecimal,
  type OrderAccepted,
  type OrderRejection,
  type PlaceOrderReply,
  type PlaceOrderRequest,
} from '#contracts';
import { KeyedMailbox, type Clock } from '#actors';
import { isBusUnavailable } from '#bus';
import type { JsonLogger } from '#observability';
import type { ExecutionMetrics } from '../metrics/execution-metrics.js';
import { crash, type CrashPoint, type OrderDesk } from '../orders/order-desk.js';
import { mintClientRequestId } from '../orders/client-request-id.js';
import type { OrderJournal } from '../orders/order-journal.js';
import { commandSendBy, isFinalState, viewOf, type OrderRecord, type RecordedQuote } from '../orders/order-record.js';
import type { KnownQuote, QuoteBook } from '../quotes/quote-book.js';
import type { PriceStreams } from '../quotes/price-streams.js';
import type { ClaimResult, QuoteClaims } from '../quotes/quote-claims.js';
import { canonicalScopeId } from '../risk/limits.js';
import type { RiskGate, RiskOrder, RiskQuote, RiskRefusal } from '../risk/risk-gate.js';
import { queueValues, type OrderQueue } from './order-queue.js';

export interface PlaceGate {
  /** Undefined when orders may be taken; otherwise the refusal. */
  refusal(): OrderRejection | undefined;
}

export interface PlaceOrderDeps {
  instanceId: string;
  journal: OrderJournal;
  desk: OrderDesk;
  book: QuoteBook;
  streams: PriceStreams;
  claims: QuoteClaims;
  risk: RiskGate;
  gate: PlaceGate;
  /** Backpressure: refuses an order that cannot leave before its deadline behind those queued (order-queue.ts). */
  queue: Pick<OrderQueue, 'admit'>;
  metrics: ExecutionMetrics;
  clock: Clock;
  logger: JsonLogger;
  quoteLifeMs: number;
  /** An order's command cannot leave later than this after its acceptance (ORDER_SEND_DEADLINE_MS). */
  sendDeadlineMs: number;
  /** Test-only fault injection (`after-key-claim`: the process kills itself between the claims and the intent). */
  crashAt?: CrashPoint;
}

/**
 * Quotes an order by quote request tries when other instances' orders took the ones it chose first: each try
 * takes a quote no order on this instance took, so a burst spread over a few instances is placed in full. Also
 * the bound on deciding again when a key claimed by another request was given back meanwhile.
 */
const MAX_QUOTE_TRIES = 10;

/** Beyond an order's send deadline, how long its placing may still be under way (clocks of two hosts). */
export const ABANDONED_PLACING_MARGIN_MS = 5_000;

type KeyState =
  | { kind: 'free' }
  | { kind: 'answered'; reply: PlaceOrderReply }
  /** The key held an abandoned order's claim, at this revision: a new order takes it over by compare-and-set. */
  | { kind: 'take-over'; revision: number };
const FREE: KeyState = { kind: 'free' };

export class PlaceOrderService {
  private inFlight = 0;
  private readonly sameKey = new KeyedMailbox();
  private idleWaiters: Array<() => void> = [];
  private readonly logger: JsonLogger;

  constructor(private readonly deps: PlaceOrderDeps) {
    this.logger = deps.logger.child('place');
  }

  /** Resolves when no place request is being handled (for shutdown). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async place(payload: Uint8Array): Promise<PlaceOrderReply> {
    const receivedAt = performance.now();
    this.inFlight += 1;
    try {
      return await this.decide(payload, receivedAt);
    } catch (error) {
      this.logger.error('place request failed', { error: error instanceof Error ? error.message : String(error) });
      // NATS away mid-request (outside tester: 67 of a burst answered INTERNAL, which no guide says to ask again)
      if (isBusUnavailable(error)) {
        return this.reject(
          ExecutionErrorCode.JournalUnavailable,
          'NATS (the order journal) did not answer; ask again with the same idempotency key (it answers the same order, never a second one)',
          undefined,
        );
      }
      return this.reject(ExecutionErrorCode.Internal, 'internal error; the order was not accepted', undefined);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async decide(payload: Uint8Array, receivedAt: number): Promise<PlaceOrderReply> {
    const parsed = parsePlaceOrder(payload);
    if (!parsed.ok) {
      const rejection: OrderRejection = {
        ok: false,
        error: {
          code: ExecutionErrorCode.InvalidRequest,
          message: `invalid fields: ${parsed.problems.map((p) => p.field).join(', ')}`,
          fields: parsed.problems,
        },
      };
      this.deps.metrics.rejected(rejection.error.code, undefined);
      return rejection;
    }
    const request = parsed.value;
    const closed = this.deps.gate.refusal();
    if (closed !== undefined) {
      this.deps.metrics.rejected(closed.error.code, request.strategyId);
      return closed;
    }
    // Requests with one key are decided one after another here: a repeat sent while the first is deciding
    // answers the first's order (it takes no quote and no risk budget of its own).
    return this.sameKey.run(`${request.strategyId}\u0000${request.idempotencyKey}`, () =>
      this.decideKey(request, receivedAt),
    );
  }

  private async decideKey(request: PlaceOrderRequest, receivedAt: number, tries = 1): Promise<PlaceOrderReply> {
    const payloadHash = hashOf(request);
    const keyState = await this.keyState(request, payloadHash);
    if (keyState.kind === 'answered') return keyState.reply;
    const takeOverRevision = keyState.kind === 'take-over' ? keyState.revision : undefined;

    const now = this.deps.clock.now();
    if (request.sendBy !== undefined && request.sendBy <= now) {
      return this.reject(
        ExecutionErrorCode.SendByPassed,
        'sendBy had passed when the request was decided; nothing was stored (check the clocks agree)',
        request.strategyId,
        { sendBy: String(request.sendBy), now: String(now) },
      );
    }
    let known: KnownQuote | undefined;
    if (request.quoteId !== undefined) {
      known = this.deps.book.quote(request.quoteId);
    } else {
      const halted = this.deps.risk.haltRefusal(request);
      if (halted !== undefined) return this.riskRefusal(halted, request.strategyId);
      const fresh = await this.deps.streams.freshest({
        instrument: request.instrument as string,
        quantity: request.quantity as string,
        currency: request.currency as string,
        tenor: request.tenor as string,
        accountGroup: request.accountGroup,
      });
      // Another instance may have placed this key's order meanwhile (the quote it took is why none is left).
      if (!fresh.ok)
        return (
          (await this.existing(request, payloadHash)) ??
          this.reject(fresh.code, fresh.message, request.strategyId, 'values' in fresh ? fresh.values : undefined)
        );
      known = fresh.quote;
    }
    const quoteId = request.quoteId ?? (known?.price.quoteId as string);
    // The venue executes the quote, whatever the request says: risk checks (and positions book) the quote's
    // instrument. A request naming another one is refused — it would pass per-currency limits it breaks.
    const quoted = known?.price.instrument;
    if (quoted !== undefined && request.instrument !== undefined && request.instrument !== quoted) {
      return this.reject(
        ExecutionErrorCode.InvalidRequest,
        `instrument does not match the quote's (${quoted})`,
        request.strategyId,
      );
    }
    // Likewise its account group: the venue trades a quote in the group of the stream that produced it (§2.3:
    // the group selects spread, credit limit and permissions; an order names no group, §4.2). Checked and booked
    // under another group, an order would bypass its group's limits and trading state. A UUID in another case is the
    // same group (the one spelling risk uses).
    const quotedGroup = known?.price.accountGroup;
    if (
      quotedGroup !== undefined &&
      canonicalScopeId('accountGroup', request.accountGroup) !== canonicalScopeId('accountGroup', quotedGroup)
    ) {
      return this.reject(
        ExecutionErrorCode.InvalidRequest,
        `accountGroup does not match the quote's (${quotedGroup})`,
        request.strategyId,
      );
    }
    const instrument = quoted ?? request.instrument;
    const quote = riskQuote(quoteId, known, request.side, this.deps.book);
    const recorded: RecordedQuote = {
      ...(quote.venueTimestamp !== undefined ? { venueTimestamp: quote.venueTimestamp } : {}),
      // An unseen quote was issued before now: it expires within one quote life from now at the latest.
      quoteExpiresAt: quote.quoteExpiresAt ?? now + this.deps.quoteLifeMs,
      ...(quote.price !== undefined ? { price: quote.price } : {}),
      ...(quote.quantity !== undefined ? { quantity: quote.quantity } : {}),
      ...(quote.quoteAmount !== undefined ? { quoteAmount: quote.quoteAmount } : {}),
    };
    const orderId = randomUUID();
    const riskOrder: RiskOrder = {
      orderId,
      strategyId: request.strategyId,
      accountGroup: request.accountGroup,
      side: request.side,
      instrument: instrument ?? '',
      quote,
      ...(request.worstPrice !== undefined ? { worstPrice: request.worstPrice } : {}),
    };
    // Admitted at the time of the decision, not of the request: waiting for a quote may have taken seconds,
    // and an old time would let the rate windows count this order in a second long gone.
    const decision = await this.deps.risk.admit(riskOrder, this.deps.clock.now());
    if (!decision.ok) {
      // Another instance's order on the quote reached this risk book first: a quote request takes the next quote.
      if (decision.code === RiskCode.QuoteSizeExhausted && this.triesNext(request, quoteId, tries))
        return this.decideKey(request, receivedAt, tries + 1);
      return this.riskRefusal(decision, request.strategyId);
    }
    const record: OrderRecord = {
      v: 1,
      orderId,
      clientRequestId: mintClientRequestId(now),
      idempotencyKey: request.idempotencyKey,
      payloadHash,
      strategyId: request.strategyId,
      accountGroup: request.accountGroup,
      side: request.side,
      ...(instrument !== undefined ? { instrument } : {}),
      quoteId,
      ...sizeOf(request, known),
      quote: recorded,
      ...(request.worstPrice !== undefined ? { worstPrice: request.worstPrice } : {}),
      ...(request.sendBy !== undefined ? { sendBy: request.sendBy } : {}),
      state: 'INTENT_RECORDED',
      acceptedAt: now,
      updatedAt: now,
      owner: this.deps.instanceId,
      eventSeq: 1,
    };
    // Backpressure: an order that would still be queued at its command's sendBy is refused now, not accepted to fail.
    const queued = await this.deps.queue.admit(commandSendBy(record, this.deps.sendDeadlineMs));
    this.deps.metrics.queueEstimates.inc({ result: queued.result });
    if (!queued.ok) {
      this.deps.risk.record({ kind: 'not-executed', orderId });
      return this.reject(
        ExecutionErrorCode.OrderQueueFull,
        `the order could not leave before its send deadline behind the ${queued.estimate.ordersAhead} queued for the venue; nothing was stored — ask again with the same key once the queue drains`,
        request.strategyId,
        queueValues(queued.estimate),
      );
    }
    // First the contended claims — the key and the quote's size — in one round trip: an order that loses either
    // leaves no record and no open mark behind (nothing a sweep could resume, no event for an order never placed).
    // Then the intent (record, open mark, ref): only a whole intent is ever sent. A crash in between leaves a key
    // whose order was never opened: a retry with the key finds it and, once it can no longer be sent, places anew.
    this.deps.desk.reserve(orderId);
    queued.counted(); // the desk counts it among the commands not yet published from now on
    const keyEntry = { orderId, clientRequestId: record.clientRequestId, payloadHash, acceptedAt: now, quoteId };
    let claim: 'created' | 'exists';
    let quoteClaim: ClaimResult;
    try {
      [claim, quoteClaim] = await Promise.all([
        this.deps.journal.claimKey(request.strategyId, request.idempotencyKey, keyEntry, takeOverRevision),
        this.claimQuote(quoteId, orderId, quote.quantity),
      ]);
    } catch (error) {
      return this.intentNotRecorded(request, record, error);
    }
    if (claim === 'exists') {
      // The same key won a race in another request a moment ago: this order is never sent.
      this.deps.risk.record({ kind: 'not-executed', orderId });
      if (quoteClaim.ok) await this.releaseQuote(quoteId, orderId);
      this.deps.desk.release(orderId);
      const answer = await this.existing(request, payloadHash);
      if (answer !== undefined) return answer;
      // The winner gave the key back meanwhile (it lost its quote, or its journal write failed): decide again.
      if (tries < MAX_QUOTE_TRIES) return this.decideKey(request, receivedAt, tries + 1);
      return this.reject(
        ExecutionErrorCode.OrderBeingPlaced,
        'other requests with this key are being decided; ask again with the same key in 1 s',
        request.strategyId,
      );
    }
    if (!quoteClaim.ok) {
      // Orders another instance admitted a moment ago took the quote: this order is never sent.
      this.deps.risk.record({ kind: 'not-executed', orderId });
      this.deps.desk.release(orderId);
      await this.releaseKey(request, orderId);
      if (this.triesNext(request, quoteId, tries)) return this.decideKey(request, receivedAt, tries + 1);
      this.deps.metrics.rejected(RiskCode.QuoteSizeExhausted, request.strategyId);
      return {
        ok: false,
        error: {
          code: RiskCode.QuoteSizeExhausted,
          message: 'the quoted quantity is already taken by other orders on this quote',
          // an order takes its quote's whole quantity (W4): what it requested is what was quoted
          values: { quoteId, quoted: quoteClaim.quoted, used: quoteClaim.taken, requested: quoteClaim.quoted },
        },
      };
    }
    if (this.deps.crashAt === 'after-key-claim') crash();
    try {
      await this.deps.journal.createOrder(record);
    } catch (error) {
      return this.intentNotRecorded(request, record, error);
    }
    const accepted: OrderAccepted = {
      ok: true,
      orderId,
      clientRequestId: record.clientRequestId,
      duplicate: false,
      order: viewOf(record),
    };
    this.deps.desk.place(record, receivedAt);
    this.deps.streams.markUsed(quoteId);
    return accepted;
  }

  /**
   * A write of the intent failed (any of them may have been stored): its leftovers go — the open mark first, so no
   * sweep resumes it — and the key and the quote are given back, so that a retry with the key places the order
   * rather than finding one never sent.
   */
  private async intentNotRecorded(
    request: PlaceOrderRequest,
    record: OrderRecord,
    error: unknown,
  ): Promise<OrderRejection> {
    const { orderId } = record;
    this.deps.risk.record({ kind: 'not-executed', orderId });
    await this.deps.journal.discardIntent(orderId, record.clientRequestId).catch(() => undefined);
    await this.releaseQuote(record.quoteId, orderId);
    this.deps.desk.release(orderId);
    await this.releaseKey(request, orderId);
    this.logger.error('intent not recorded; order refused', {
      error: error instanceof Error ? error.message : String(error),
    });
    return this.reject(
      ExecutionErrorCode.JournalUnavailable,
      'the order journal is unavailable; nothing was sent',
      request.strategyId,
    );
  }

  /** Marks a quote other instances took as used here; true when the order (by quote request) may try the next. */
  private triesNext(request: PlaceOrderRequest, quoteId: string, tries: number): boolean {
    this.deps.streams.markUsed(quoteId);
    return request.quoteId === undefined && tries < MAX_QUOTE_TRIES;
  }

  /** The quote's size for this order, across instances (an order executes its quote's quantity, W4). */
  private claimQuote(quoteId: string, orderId: string, quantity: string | undefined): Promise<ClaimResult> {
    // Without a quantity risk refused the order (QUOTE_INCOMPLETE / QUOTE_UNKNOWN) before it got here.
    if (quantity === undefined) return Promise.resolve({ ok: true });
    return this.deps.claims.claim(quoteId, orderId, quantity, quantity);
  }

  private releaseQuote(quoteId: string, orderId: string): Promise<void> {
    return this.deps.claims.release(quoteId, orderId).catch((error: unknown) =>
      this.logger.warn('quote claim of a refused order not given back', {
        orderId,
        quoteId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private releaseKey(request: PlaceOrderRequest, orderId: string): Promise<void> {
    return this.deps.journal.releaseKey(request.strategyId, request.idempotencyKey, orderId).catch((error: unknown) =>
      this.logger.warn('idempotency key of a refused order not released', {
        orderId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** The key's order as a reply, when the key answers one (undefined: the key is free, or free to take over). */
  private async existing(request: PlaceOrderRequest, payloadHash: string): Promise<PlaceOrderReply | undefined> {
    const key = await this.keyState(request, payloadHash);
    return key.kind === 'answered' ? key.reply : undefined;
  }

  /**
   * What the idempotency key holds: nothing; an order (answered with it); or an order whose placing never
   * finished — claimed, never opened (a crash between the claims and the intent, or under way on another
   * instance). Such an order is answered `ORDER_BEING_PLACED` until it can no longer be sent (its command's
   * `sendBy` has passed, with a margin for clocks); then its leftovers go and the key passes to a new order.
   */
  private async keyState(request: PlaceOrderRequest, payloadHash: string): Promise<KeyState> {
    const claimed = await this.deps.journal.keyClaim(request.strategyId, request.idempotencyKey);
    if (claimed === undefined) return FREE;
    const { entry, revision } = claimed;
    const stored = await this.deps.journal.read(entry.orderId);
    const placed =
      stored !== undefined && (isFinalState(stored.record.state) || (await this.deps.journal.isOpen(entry.orderId)));
    // Another payload is refused naming the key's order only once that order exists: one never opened is answered
    // as being placed below (outside tester: the refusal named an order that never existed; the key later went to
    // another one).
    if (placed && entry.payloadHash !== payloadHash) {
      this.deps.metrics.duplicates.inc({ result: 'refused' });
      this.deps.metrics.rejected(ExecutionErrorCode.IdempotencyKeyReused, request.strategyId);
      return {
        kind: 'answered',
        reply: {
          ok: false,
          error: {
            code: ExecutionErrorCode.IdempotencyKeyReused,
            message: 'this idempotency key was used for another order with a different payload',
            values: { orderId: entry.orderId },
          },
        },
      };
    }
    if (placed) {
      this.deps.metrics.duplicates.inc({ result: 'existing' });
      return {
        kind: 'answered',
        reply: {
          ok: true,
          orderId: entry.orderId,
          clientRequestId: entry.clientRequestId,
          duplicate: true,
          order: viewOf(stored.record),
        },
      };
    }
    const acceptedAt = entry.acceptedAt ?? stored?.record.acceptedAt ?? 0;
    const sendableUntil = acceptedAt + this.deps.sendDeadlineMs + ABANDONED_PLACING_MARGIN_MS;
    const now = this.deps.clock.now();
    if (now <= sendableUntil) {
      return {
        kind: 'answered',
        reply: this.reject(
          ExecutionErrorCode.OrderBeingPlaced,
          `the order of this key is still being placed; ask again with the same key in ${Math.ceil((sendableUntil - now) / 1_000)} s`,
          request.strategyId,
        ),
      };
    }
    // Never opened and past its send deadline: never sent, and it never can be. Its leftovers go.
    const quoteId = entry.quoteId ?? stored?.record.quoteId;
    await this.deps.journal.discardIntent(entry.orderId, entry.clientRequestId);
    if (quoteId !== undefined) await this.releaseQuote(quoteId, entry.orderId);
    this.deps.metrics.duplicates.inc({ result: 'abandoned' });
    this.logger.warn('order of this key was never placed whole (its placing ended); the key passes to a new order', {
      orderId: entry.orderId,
      strategyId: request.strategyId,
    });
    return { kind: 'take-over', revision };
  }

  private riskRefusal(refusal: RiskRefusal, strategyId: string): OrderRejection {
    this.deps.metrics.rejected(refusal.code, strategyId);
    return { ok: false, error: { code: refusal.code, message: refusal.message, values: refusal.values } };
  }

  private reject(
    code: string,
    message: string,
    strategyId: string | undefined,
    values?: Record<string, string>,
  ): OrderRejection {
    this.deps.metrics.rejected(code, strategyId);
    return { ok: false, error: { code, message, ...(values !== undefined ? { values } : {}) } };
  }
}

/**
 * The quote as risk sees it: the side the order executes on (offer for BUY, bid for SELL), and the status of its
 * stream now (a quote held from a live price is not traded once its stream turned stale or stopped).
 */
function riskQuote(quoteId: string, known: KnownQuote | undefined, side: 'BUY' | 'SELL', book: QuoteBook): RiskQuote {
  if (known === undefined) {
    // seen, but past its life (the book forgets its amounts, not that it existed): QUOTE_EXPIRED, not QUOTE_UNKNOWN
    const expiredAt = book.expiredAt(quoteId);
    return expiredAt === undefined
      ? { quoteId, status: 'unknown' }
      : { quoteId, status: 'expired', quoteExpiresAt: expiredAt };
  }
  const price = known.price;
  const sideQuote = side === 'BUY' ? price.offer : price.bid;
  return {
    quoteId,
    status: book.streamStatus(known),
    ...(price.venueTimestamp !== undefined ? { venueTimestamp: price.venueTimestamp } : {}),
    quoteExpiresAt: book.expiresAt(known),
    ...(sideQuote !== undefined
      ? { price: sideQuote.price, quantity: sideQuote.quantity, quoteAmount: sideQuote.quoteAmount }
      : {}),
  };
}

/**
 * The size the order is for, as it is kept and shown (outside tester t3 F10): the quote request's, its quantity in
 * the plain form a retry is compared in; for an order by quoteId, that of the price stream that carried the quote.
 */
function sizeOf(
  request: PlaceOrderRequest,
  known: KnownQuote | undefined,
): Pick<OrderRecord, 'quantity' | 'currency' | 'tenor'> {
  const quantity = plainOrUndefined(request.quantity ?? known?.price.quantity);
  const currency = request.currency ?? known?.price.currency;
  const tenor = request.tenor ?? known?.price.tenor;
  return {
    ...(quantity !== undefined ? { quantity } : {}),
    ...(currency !== undefined ? { currency } : {}),
    ...(tenor !== undefined ? { tenor } : {}),
  };
}

/** A size in its plain form; undefined for none, or for a price message's that is no decimal (nothing to show). */
function plainOrUndefined(quantity: unknown): string | undefined {
  if (typeof quantity !== 'string') return undefined;
  try {
    return plainDecimal(quantity);
  } catch {
    return undefined;
  }
}

/** The fields that make the order, in a fixed order: the same request hashes the same. */
function hashOf(request: PlaceOrderRequest): string {
  const canonical = [
    request.strategyId,
    request.idempotencyKey,
    request.accountGroup,
    request.side,
    request.quoteId ?? '',
    request.instrument ?? '',
    // one spelling per value: `0.010` repeats an order for `0.01` (one stream, one order)
    request.quantity === undefined ? '' : plainDecimal(request.quantity),
    request.currency ?? '',
    request.tenor ?? '',
    request.worstPrice === undefined ? '' : plainDecimal(request.worstPrice),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

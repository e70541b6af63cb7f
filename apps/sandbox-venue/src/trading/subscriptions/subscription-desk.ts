import { randomUUID } from 'node:crypto';
import { SandboxCode, type SubscribeAck, type UnsubscribeReply, type PriceUpdate, type StreamStop } from '#venue-api';
import { isJsonObject, JsonNumber, parseJson } from '../../http/json.js';
import type { UserDirectory, VenueClock } from '../../ports.js';
import type { WsFaults } from '../faults/ws-faults.js';
import type { Market } from '../market/market.js';
import { settleDateFor } from '../market/tenor.js';
import type { QuoteBook, QuoteTerms } from '../quotes/quote-book.js';
import type { LiveSubscription, VenueConnection } from '../socket/venue-connection.js';
import type { TradingConfig } from '../trading-config.js';
import type { TradingMetrics } from '../trading-metrics.js';
import { validateSubscribe, type SubscriptionSpec } from './subscribe-validation.js';

type Frame<T> = Omit<T, 'chanId' | 'timestamp'>;

/** streamStop code when the operator halts an instrument (W11; sandbox code, spec-gaps W24). */
export const INSTRUMENT_HALTED = 'INSTRUMENT_HALTED';
/** streamStop code answering an unsubscribe, in the dialects that send one (W10; sandbox code). */
export const STREAM_UNSUBSCRIBED = 'UNSUBSCRIBED';

/**
 * Price subscriptions: subscribe (exactly one acknowledgement each, §2.1 rule 1), unsubscribe (W10),
 * the per-connection cadence (W13) and stream stops (W11).
 */
export class SubscriptionDesk {
  /** `held` dialect: subscriptions of a session whose connection ended, waiting for its next connection. */
  private readonly held = new Map<string, { subscriptions: LiveSubscription[]; until: number }>();

  constructor(
    private readonly market: Market,
    private readonly quotes: QuoteBook,
    private readonly directory: UserDirectory,
    private readonly clock: VenueClock,
    private readonly config: TradingConfig,
    private readonly faults: WsFaults,
    private readonly metrics: TradingMetrics,
  ) {}

  /** `frameText` is the request as received, for the raw quantity echo of a failed subscribe (§2.1). */
  subscribe(connection: VenueConnection, request: Record<string, unknown>, frameText?: string): void {
    // Minted before validation: a failed acknowledgement carries an id that names nothing (§2.1).
    const subscriptionId = randomUUID();
    const verdict = validateSubscribe(request, {
      userUuid: connection.userUuid,
      market: this.market,
      directory: this.directory,
      now: this.clock.now(),
      cutoffHourUtc: this.config.cutoffHourUtc,
      isHeld: (key) => [...connection.subscriptions.values()].some((s) => s.spec.streamKey === key),
      takeInjectedFailure: () => this.faults.takeFailSubscribe(),
    });
    if (!verdict.ok) {
      this.sendRefusal(connection, request, frameText, subscriptionId, verdict);
      return;
    }
    const { spec } = verdict;
    connection.subscriptions.set(subscriptionId, {
      subscriptionId,
      spec,
      terms: quoteTermsOf(connection.userUuid, spec),
    });
    this.metrics.subscriptions.inc();
    const ack: Frame<SubscribeAck> = {
      messageType: 'subscribe',
      success: true,
      message: 'Subscribed',
      subscriptionId,
      instrument: spec.instrument,
      quantity: spec.quantity.toFixed(8),
      code: '',
      tenor: spec.tenor,
      settleDate: '',
      tag: spec.tag,
      networkId: spec.networkId,
    };
    connection.send(ack);
  }

  /** A subscribe over the account's message budget (W14, dialect `rateLimitedSubscribe: ack`): its one, failed ack. */
  refuseRateLimited(connection: VenueConnection, request: Record<string, unknown>, frameText?: string): void {
    this.sendRefusal(connection, request, frameText, randomUUID(), {
      code: SandboxCode.MessageRateLimited,
      message: 'Too many messages: 30 per second per account',
      networkId: null,
    });
  }

  /** §2.1: a failed acknowledgement echoes the request (the raw quantity) and names a subscription that is not. */
  private sendRefusal(
    connection: VenueConnection,
    request: Record<string, unknown>,
    frameText: string | undefined,
    subscriptionId: string,
    refusal: { code: string; message: string; networkId: string | null | undefined },
  ): void {
    const ack: Frame<SubscribeAck> = {
      messageType: 'subscribe',
      success: false,
      message: refusal.message,
      subscriptionId,
      instrument: textOf(request['instrument']),
      quantity: rawEcho(request['quantity'], frameText),
      code: refusal.code,
      tenor: textOf(request['tenor']),
      settleDate: '',
      tag: textOf(request['tag']),
      networkId: refusal.networkId,
    };
    connection.send(ack);
  }

  /** W10; unknown or failed ids are ignored without a reply (§2.1 rule 3). */
  unsubscribe(connection: VenueConnection, request: Record<string, unknown>): void {
    const id = request['subscriptionId'];
    if (typeof id !== 'string') return;
    const live = connection.subscriptions.get(id);
    if (live === undefined) return;
    connection.subscriptions.delete(id);
    this.metrics.subscriptions.dec();
    const reply: Frame<UnsubscribeReply> = {
      messageType: 'unsubscribe',
      subscriptionId: id,
      tag: live.spec.tag,
      success: true,
      message: 'Unsubscribed',
    };
    const stop: Frame<StreamStop> = {
      messageType: 'streamStop',
      instrument: live.spec.instrument,
      tenor: live.spec.tenor,
      tag: live.spec.tag,
      code: STREAM_UNSUBSCRIBED,
      message: 'Unsubscribed',
    };
    // Which frames answer an unsubscribe, and in which order, is not shown (W10): the dialect decides.
    const frames = {
      'unsubscribe-only': [reply],
      'unsubscribe-then-streamStop': [reply, stop],
      'streamStop-then-unsubscribe': [stop, reply],
      'streamStop-only': [stop],
    }[this.config.dialect.unsubscribeReplies];
    for (const frame of frames) connection.send(frame);
  }

  /**
   * One cadence tick (§2.2 rule 3, W13): an update for every live subscription of the connection, or — dialect
   * `priceCadence: per-connection` — one update for the connection, its subscriptions in turn.
   */
  tick(connection: VenueConnection, tick: number, now: number): void {
    const every = this.config.offContractEveryNTicks;
    const offContract = every > 0 && tick % every === 0 ? tick / every : undefined;
    // Every third off-contract turn, this tick's price updates carry a property the contract lacks (§9).
    const extraProperty: { venueSeq?: number } =
      offContract !== undefined && offContract % 3 === 0 ? { venueSeq: offContract } : {};
    if (offContract !== undefined && offContract % 3 !== 0) this.sendOffContract(connection, offContract);
    if (this.config.dialect.priceCadence === 'per-stream') {
      for (const live of connection.subscriptions.values()) this.sendPrice(connection, live, now, extraProperty);
      return;
    }
    const live = [...connection.subscriptions.values()];
    // The turn moves on by one each tick; a subscription with no price now passes its turn to the next.
    for (let offset = 0; offset < live.length; offset += 1) {
      const next = live[(tick + offset) % live.length];
      if (next !== undefined && this.sendPrice(connection, next, now, extraProperty)) return;
    }
  }

  /** One price update of one subscription, when it has a price now. */
  private sendPrice(
    connection: VenueConnection,
    { spec, terms }: LiveSubscription,
    now: number,
    extraProperty: { venueSeq?: number },
  ): boolean {
    const mid = this.market.mid(spec.instrument);
    if (mid === undefined || this.market.isHalted(spec.instrument) || this.market.isSilenced(spec.instrument))
      return false;
    const settleDate = settleDateFor(spec.tenor, spec.info, now, this.config.cutoffHourUtc);
    if (settleDate === undefined) return false;
    const { quoteId, price } = this.quotes.issue(now, terms, mid, settleDate);
    const update: Frame<PriceUpdate> = {
      messageType: 'pricestream',
      instrument: spec.instrument,
      quoteId,
      offer: price.offer,
      bid: price.bid,
      tenor: spec.tenor,
      settleDate,
      tag: spec.tag,
      ...extraProperty,
    };
    connection.send(update, { droppable: true, timestamp: now });
    return true;
  }

  /** The venue stops every stream of `instrument` on the connection (W11); the subscriptions are gone. */
  stopInstrument(connection: VenueConnection, instrument: string, message: string): void {
    for (const [id, live] of connection.subscriptions) {
      if (live.spec.instrument !== instrument) continue;
      connection.subscriptions.delete(id);
      this.metrics.subscriptions.dec();
      const stop: Frame<StreamStop> = {
        messageType: 'streamStop',
        instrument,
        tenor: live.spec.tenor,
        tag: live.spec.tag,
        code: INSTRUMENT_HALTED,
        message,
      };
      connection.send(stop);
    }
  }

  /**
   * The connection is gone: its subscriptions die with it — or, in the `held` dialect, wait for the
   * session's next connection (a client-chosen sessionId only) for `subscriptionHoldMs`.
   */
  release(connection: VenueConnection): void {
    this.dropExpiredHolds();
    const { dialect } = this.config;
    if (
      dialect.subscriptionsOnReconnect === 'held' &&
      !connection.session.minted &&
      connection.subscriptions.size > 0
    ) {
      this.held.set(connection.sessionKey, {
        subscriptions: [...connection.subscriptions.values()],
        until: this.clock.now() + dialect.subscriptionHoldMs,
      });
    } else {
      this.metrics.subscriptions.dec(connection.subscriptions.size);
    }
    connection.subscriptions.clear();
  }

  /**
   * `held` dialect: a connection joined a session whose subscriptions were held; they go on streaming to it
   * under their old subscriptionIds and tags, and a new subscribe for one of them is refused as held (RFS100017).
   */
  adopt(connection: VenueConnection): void {
    this.dropExpiredHolds();
    const held = this.held.get(connection.sessionKey);
    if (held === undefined) return;
    this.held.delete(connection.sessionKey);
    for (const live of held.subscriptions) connection.subscriptions.set(live.subscriptionId, live);
  }

  private dropExpiredHolds(): void {
    const now = this.clock.now();
    for (const [key, held] of this.held) {
      if (held.until > now) continue;
      this.held.delete(key);
      this.metrics.subscriptions.dec(held.subscriptions.length);
    }
  }

  /**
   * Frames outside the contract (§4.2, §9), so clients prove they ignore them: a `heartbeat`, or a frame of
   * a type the protocol lacks carrying extra properties (the third turn is the extra price property above).
   */
  private sendOffContract(connection: VenueConnection, n: number): void {
    if (n % 2 === 1) {
      connection.send({ messageType: 'heartbeat', seq: n }, { droppable: true });
    } else {
      connection.send(
        { messageType: 'venueStatus', status: 'OPEN', venueSeq: n, extra: { note: 'outside the contract' } },
        { droppable: true },
      );
    }
  }
}

/**
 * §2.1: on failure the raw submitted quantity is echoed unparsed. A JSON number (refused, W31) is echoed as
 * the text the client sent (`1.50`, `1e21`), read losslessly from the frame, never through a JS number.
 */
function rawEcho(quantity: unknown, frameText: string | undefined): string {
  if (typeof quantity === 'string') return quantity;
  if (typeof quantity === 'number' && frameText !== undefined) {
    const sent = numberTextOf(frameText, 'quantity');
    if (sent !== undefined) return sent;
  }
  if (typeof quantity === 'number' || typeof quantity === 'boolean') return String(quantity);
  return '';
}

function numberTextOf(frameText: string, field: string): string | undefined {
  try {
    const parsed = parseJson(frameText);
    if (!isJsonObject(parsed)) return undefined;
    const value = parsed[field];
    return value instanceof JsonNumber ? value.text : undefined;
  } catch {
    return undefined;
  }
}

/** The quote terms of a new subscription of `userUuid`: shared by every quote the stream issues. */
function quoteTermsOf(userUuid: string, spec: SubscriptionSpec): QuoteTerms {
  return {
    userUuid,
    accountGroupUuid: spec.accountGroupUuid,
    info: spec.info,
    currency: spec.currency,
    quantity: spec.quantity,
    tenor: spec.tenor,
    ...(spec.beneficiaryUuid !== undefined && { beneficiaryUuid: spec.beneficiaryUuid }),
    ...(spec.senderUuid !== undefined && { senderUuid: spec.senderUuid }),
    ...(spec.networkId !== null && { networkId: spec.networkId }),
  };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

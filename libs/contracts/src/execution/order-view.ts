/**
 * What the execution app says about an order: its state, outcome, fill and the evidence that decided it.
 * Decimals are strings. Published on every state change (`OrderEvent`) and answered by `order.get`/`order.list`.
 */
import type { OrderOutcomeSource } from '../order.js';
import type { OrderOutcomeStatus } from '../order-status.js';

/**
 * The order's own states, in order: accepted (risk admitted it) and its intent durable →
 * the command is in the connector's durable stream (SENT: not necessarily sent to the venue yet; never sent by its
 * deadline it ends FAILED SEND_DEADLINE_PASSED) → the venue's outcome (PENDING, UNKNOWN, INDETERMINATE)
 * → one final state, SUCCESS or FAILED.
 */
export const ORDER_STATES = [
  'INTENT_RECORDED',
  'SENT',
  'PENDING',
  'UNKNOWN',
  'INDETERMINATE',
  'SUCCESS',
  'FAILED',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Which evidence decided a final state (or the last status). */
export type EvidenceSource =
  /** The connector's outcome: the venue's reply, a redelivery, or the order-state endpoint. */
  | 'reply'
  | 'redelivery'
  | 'order-state'
  /** The connector refused the command before it reached the venue. */
  | 'gateway'
  /** The venue's trade list holds a trade with clientRef = the order's clientRequestId. */
  | 'trade-list'
  /** Not executed: the quote expired and neither the order-state endpoint nor the trade list knows the order. */
  | 'quote-expired-unknown-to-venue'
  /** Never sent: the same idempotency key won a race in another request. */
  | 'execution';

export interface OrderFill {
  /** Quote currency per base unit (§2.4 `executedPrice` without its `[BASE/QUOTE]` prefix). */
  price: string;
  baseCurrency: string;
  quoteCurrency: string;
  /** Base amount bought (BUY) or sold (SELL). */
  baseAmount: string;
  /** Quote amount paid (BUY) or received (SELL). */
  quoteAmount: string;
  /** §2.4 tradedAmount / settlementAmount when the trade list was read. */
  tradedAmount?: { amount: string; currency: string };
  settlementAmount?: { amount: string; currency: string };
  tradeRef?: string;
  /** Where the figures come from: the venue's order reply, its trade list, or the quote the order executed on. */
  source: 'outcome' | 'trade-list' | 'quote';
}

/**
 * The venue undid the order's trade after executing it (§3.2: CANCELLED before settlement, FAILED when
 * settlement failed). The order stays SUCCESS (it did execute); its fill was taken back from the strategy's
 * positions and from risk's exposure.
 */
export interface UndoneTrade {
  state: 'CANCELLED' | 'FAILED';
  /** The venue's trade (§2.4 uuid). */
  tradeUuid: string;
  /** Epoch ms the gateway learnt it (account-sync's `seenAt`). */
  at: number;
}

/**
 * The venue contradicted the order's published FAILED (a SUCCESS reply or redelivery after it, spec-gaps K7) and
 * execution looked at its trade list by `clientRef`. The order stays FAILED (one final outcome per order, never
 * a second); this says what the venue's records showed:
 *  - `EXECUTED_AFTER_FAILED`: the trade is there — the order did execute; `fill` is booked in the strategy's
 *    position and in risk's exposure (once). An algo treats the order as filled with `fill`.
 *  - `FAILED_STANDS`: no trade with the order's clientRef by the reconciliation horizon: the FAILED stands.
 */
export interface OrderCorrection {
  verdict: 'EXECUTED_AFTER_FAILED' | 'FAILED_STANDS';
  /** How the contradicting status reached the connector (`OrderOutcome.source`). */
  source: OrderOutcomeSource;
  /** The fill found in the trade list (EXECUTED_AFTER_FAILED only). */
  fill?: OrderFill;
  /** The venue's trade (§2.4 uuid), when found. */
  tradeUuid?: string;
  /** Epoch ms the gateway concluded it. */
  at: number;
}

export interface OrderView {
  v: 1;
  orderId: string;
  /** The venue's identifier of this order (minted by the execution app, explicit mapping from the key). */
  clientRequestId: string;
  idempotencyKey: string;
  strategyId: string;
  accountGroup: string;
  side: 'BUY' | 'SELL';
  instrument?: string;
  quoteId: string;
  /**
   * The size the order was placed for, as the gateway holds it: the quote request's `quantity` (plain: `0.01` for
   * `0.010`, the spelling an idempotent retry is compared in), `currency` and `tenor` — or, for an order by
   * `quoteId`, those of the price stream that carried the quote. Absent on orders accepted before it was kept.
   */
  quantity?: string;
  currency?: string;
  tenor?: string;
  worstPrice?: string;
  /** The algo's own send deadline, as the request gave it (epoch ms). */
  sendBy?: number;
  state: OrderState;
  /** The venue status behind the state (absent before the first outcome). */
  status?: OrderOutcomeStatus;
  final: boolean;
  code?: string;
  message?: string;
  fill?: OrderFill;
  evidence?: EvidenceSource;
  /** Present once the venue undid the order's trade: its fill no longer counts (see UndoneTrade). */
  undone?: UndoneTrade;
  /** Present once the venue contradicted the order's FAILED and its trade list was read (see OrderCorrection). */
  correction?: OrderCorrection;
  acceptedAt: number;
  updatedAt: number;
  /** Epoch ms the quote expires (venue timestamp + quote life; an upper bound when not known). */
  quoteExpiresAt: number;
}

/**
 * `{prefix}.{account}.exec.order.event.{strategyId}.{orderId}`, `Nats-Msg-Id` = `{orderId}:{state}` (`:final` for
 * the final one). After the final event, one more only if the venue undoes the order's trade: the same final
 * state with `order.undone` set, `Nats-Msg-Id` `{orderId}:undone`; and one more if the venue contradicts a
 * FAILED: the same FAILED state with `order.correction` set, `Nats-Msg-Id` `{orderId}:correction`.
 */
export interface OrderEvent {
  v: 1;
  /** Per order, 1, 2, 3… in the order the states were entered. */
  seq: number;
  at: number;
  order: OrderView;
}

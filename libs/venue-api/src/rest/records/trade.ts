/**
 * §2.4 trade list element; amounts are JSON numbers on the wire, read losslessly (R15). Only `uuid` (what
 * identifies a trade, pages and deduplicates it) is required; every other field is read liberally (C8): a value
 * of another kind reads as not known, a state, side or class outside §2.4's lists is kept as the venue sent it —
 * a trade is never lost because one of its fields is unusual.
 */
import { namedRefReader as namedRef, type NamedRef } from './common.js';
import { decimalText, identifier, lenient, openText, record, text, type Open, type Reader } from './shape.js';

export type TradeSide = 'BUY' | 'SELL';
export type TradeClass = 'OTC' | 'RFS';
export type TradeState = 'PENDING_SETTLEMENT' | 'SETTLED' | 'CANCELLED' | 'FAILED';

export interface TradeAmount {
  /** Exact decimal text of the venue's JSON number. */
  amount: string;
  currency: string;
}

export interface Trade {
  uuid: string;
  createdAt?: string;
  updatedAt?: string;
  tradeRef?: string;
  /** The `clientRequestId` of an RFS execution, when one was sent. */
  clientRef?: string;
  /** §2.4 `BUY`/`SELL`; another value kept as sent. */
  tradeSide?: Open<TradeSide>;
  /** What the client pays or receives. */
  settlementAmount?: TradeAmount;
  /** What is bought or sold. */
  tradedAmount?: TradeAmount;
  user?: string;
  accountGroup?: NamedRef;
  tradeClass?: Open<TradeClass>;
  /** §3.2 states; another value (a state added later) kept as sent. */
  state?: Open<TradeState>;
  /** YYYY-MM-DD. */
  settlementDate?: string;
  /** RFS trades only. */
  quoteId?: string;
  beneficiary?: NamedRef;
  sender?: NamedRef;
  networkId?: string;
  /** `[BASE/QUOTE] <price>`. */
  executedPrice?: string;
  executorLogin?: string;
  paymentReason?: string;
}

const tradeAmount = record<TradeAmount>({ amount: decimalText, currency: text });

export const tradeReader: Reader<Trade> = record<Trade>({
  uuid: identifier,
  createdAt: lenient(text),
  updatedAt: lenient(text),
  tradeRef: lenient(text),
  clientRef: lenient(text),
  tradeSide: lenient(openText<TradeSide>()),
  settlementAmount: lenient(tradeAmount),
  tradedAmount: lenient(tradeAmount),
  user: lenient(text),
  accountGroup: lenient(namedRef),
  tradeClass: lenient(openText<TradeClass>()),
  state: lenient(openText<TradeState>()),
  settlementDate: lenient(text),
  quoteId: lenient(text),
  beneficiary: lenient(namedRef),
  sender: lenient(namedRef),
  networkId: lenient(text),
  executedPrice: lenient(text),
  executorLogin: lenient(text),
  paymentReason: lenient(text),
});

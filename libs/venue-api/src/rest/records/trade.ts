/** §2.4 trade list element; amounts are JSON numbers on the wire, read losslessly (R15). */
import { namedRefReader as namedRef, type NamedRef } from './common.js';
import { decimalText, oneOf, optional, record, text, type Reader } from './shape.js';

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
  tradeSide: TradeSide;
  /** What the client pays or receives. */
  settlementAmount?: TradeAmount;
  /** What is bought or sold. */
  tradedAmount?: TradeAmount;
  user?: string;
  accountGroup?: NamedRef;
  tradeClass?: TradeClass;
  state: TradeState;
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
  uuid: text,
  createdAt: optional(text),
  updatedAt: optional(text),
  tradeRef: optional(text),
  clientRef: optional(text),
  tradeSide: oneOf('BUY', 'SELL'),
  settlementAmount: optional(tradeAmount),
  tradedAmount: optional(tradeAmount),
  user: optional(text),
  accountGroup: optional(namedRef),
  tradeClass: optional(oneOf('OTC', 'RFS')),
  state: oneOf('PENDING_SETTLEMENT', 'SETTLED', 'CANCELLED', 'FAILED'),
  settlementDate: optional(text),
  quoteId: optional(text),
  beneficiary: optional(namedRef),
  sender: optional(namedRef),
  networkId: optional(text),
  executedPrice: optional(text),
  executorLogin: optional(text),
  paymentReason: optional(text),
});

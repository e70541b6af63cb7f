/**
 * What account-sync's trade changes tell execution (`{prefix}.{account}.acct.trade.{change}.{uuid}`, an
 * `AccountStateChanged<Trade>`, docs/nats-contract.md): a trade the venue undid after executing it — CANCELLED
 * before settlement, FAILED when settlement failed (§3.2) — that names the order it executed (`clientRef` = the
 * order's clientRequestId). Pure: read liberally (only what identifies the trade and its state is needed),
 * never trusted further than that.
 */
import type { UndoneTrade } from '#contracts';
import { isParsableDecimal, parseDecimal } from '#venue-api';
import type { OrderRecord } from './order-record.js';

export const UNDONE_FILL_RESULTS = ['taken-back', 'not-ours', 'not-filled', 'not-its-trade', 'unreadable'] as const;
export type UndoneFillResult = (typeof UNDONE_FILL_RESULTS)[number];

const UNDONE_STATES: ReadonlyArray<UndoneTrade['state']> = ['CANCELLED', 'FAILED'];

export type TradeChange =
  /** Not a trade undone (created or settled, removed), or one placed without a clientRequestId. */
  | { kind: 'other' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'undone'; clientRef: string; trade: UndoneTrade; facts: TradeFacts };

interface Amount {
  amount: string;
  currency: string;
}

/** What the trade says that an order's own trade must agree with (each only when the trade says it). */
export interface TradeFacts {
  tradeRef?: string;
  tradeClass?: string;
  tradedAmount?: Amount;
  settlementAmount?: Amount;
  accountGroupUuid?: string;
}

/**
 * The change, as execution acts on it. A trade first seen already undone (`created` in CANCELLED) counts as
 * much as one seen moving there: either way the order's fill was booked and did not stand.
 */
export function tradeChangeOf(message: unknown): TradeChange {
  if (!isObject(message) || message['resource'] !== 'trade')
    return { kind: 'unreadable', reason: 'not a trade change' };
  const value = message['value'];
  if (value === undefined && message['change'] === 'removed') return { kind: 'other' };
  if (!isObject(value) || typeof value['uuid'] !== 'string' || value['uuid'] === '') {
    return { kind: 'unreadable', reason: 'a trade without its uuid' };
  }
  const state = UNDONE_STATES.find((undone) => undone === value['state']);
  const clientRef = value['clientRef'];
  if (state === undefined || typeof clientRef !== 'string' || clientRef === '') return { kind: 'other' };
  const seenAt = message['seenAt'];
  return {
    kind: 'undone',
    clientRef,
    trade: { state, tradeUuid: value['uuid'], at: typeof seenAt === 'number' && Number.isFinite(seenAt) ? seenAt : 0 },
    facts: factsOf(value),
  };
}

/**
 * Why this trade is not the order's own, if it is not: a `clientRef` alone is no proof (a venue may reuse a
 * clientRequestId, §4.10, and a desk trade may carry any reference). The trade's reference decides when both
 * sides know it; otherwise every fact both know must agree: an RFS trade, in the order's currencies, of its
 * base amount, in its account group. Undefined: nothing says otherwise.
 */
export function notItsTrade(facts: TradeFacts, record: OrderRecord): string | undefined {
  const fill = record.fill;
  if (facts.tradeRef !== undefined && fill?.tradeRef !== undefined) {
    return facts.tradeRef === fill.tradeRef ? undefined : 'another trade reference';
  }
  if (facts.tradeClass !== undefined && facts.tradeClass !== 'RFS') return `a ${facts.tradeClass.slice(0, 16)} trade`;
  const currencies = fill ? [fill.baseCurrency, fill.quoteCurrency] : record.instrument?.split('.');
  const amounts = [facts.tradedAmount, facts.settlementAmount].filter((a): a is Amount => a !== undefined);
  if (currencies !== undefined && amounts.some((a) => !currencies.includes(a.currency))) return 'other currencies';
  const base = fill ? amounts.find((a) => a.currency === fill.baseCurrency) : undefined;
  if (fill && base && isParsableDecimal(base.amount) && !parseDecimal(base.amount).eq(parseDecimal(fill.baseAmount))) {
    return 'another base amount';
  }
  const group = facts.accountGroupUuid;
  if (group !== undefined && group.toLowerCase() !== record.accountGroup.toLowerCase()) return 'another account group';
  return undefined;
}

function factsOf(trade: Record<string, unknown>): TradeFacts {
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  const amount = (value: unknown): Amount | undefined =>
    isObject(value) && typeof value['amount'] === 'string' && typeof value['currency'] === 'string'
      ? { amount: value['amount'], currency: value['currency'] }
      : undefined;
  const group = trade['accountGroup'];
  const facts: TradeFacts = {};
  const tradeRef = text(trade['tradeRef']);
  const tradeClass = text(trade['tradeClass']);
  const tradedAmount = amount(trade['tradedAmount']);
  const settlementAmount = amount(trade['settlementAmount']);
  const accountGroupUuid = isObject(group) ? text(group['uuid']) : undefined;
  if (tradeRef !== undefined) facts.tradeRef = tradeRef;
  if (tradeClass !== undefined) facts.tradeClass = tradeClass;
  if (tradedAmount !== undefined) facts.tradedAmount = tradedAmount;
  if (settlementAmount !== undefined) facts.settlementAmount = settlementAmount;
  if (accountGroupUuid !== undefined) facts.accountGroupUuid = accountGroupUuid;
  return facts;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

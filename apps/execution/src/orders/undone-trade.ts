/**
 * What account-sync's trade changes tell execution (`{prefix}.{account}.acct.trade.{change}.{uuid}`, an
 * `AccountStateChanged<Trade>`, docs/nats-contract.md): a trade the venue undid after executing it — CANCELLED
 * before settlement, FAILED when settlement failed (§3.2) — that names the order it executed (`clientRef` = the
 * order's clientRequestId). Pure: read liberally (only what identifies the trade and its state is needed),
 * never trusted further than that.
 */
import type { UndoneTrade } from '#contracts';

export const UNDONE_FILL_RESULTS = ['taken-back', 'not-ours', 'not-filled', 'unreadable'] as const;
export type UndoneFillResult = (typeof UNDONE_FILL_RESULTS)[number];

const UNDONE_STATES: ReadonlyArray<UndoneTrade['state']> = ['CANCELLED', 'FAILED'];

export type TradeChange =
  /** Not a trade undone (created or settled, removed), or one placed without a clientRequestId. */
  | { kind: 'other' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'undone'; clientRef: string; trade: UndoneTrade };

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
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

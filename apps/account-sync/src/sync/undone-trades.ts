/**
 * Trades of gateway orders the venue undid after executing them (§3.2: CANCELLED before settlement, FAILED when
 * settlement failed). Execution takes their fills back from strategy positions and risk exposure when it reads
 * the change (docs/execution.md#positions); each one is also told here — counted
 * (`account_sync_trades_undone_total{state}`, alert GatewayTradeUndone) and logged with its references — so an
 * operator knows a trade did not settle.
 */
import type { StateChange } from '#contracts';
import type { JsonLogger } from '#observability';
import type { Trade } from '#venue-api';
import type { Counter } from 'prom-client';

export const UNDONE_TRADE_STATES = ['CANCELLED', 'FAILED'] as const;
export type UndoneTradeState = (typeof UNDONE_TRADE_STATES)[number];

function undoneState(trade: Trade | undefined): UndoneTradeState | undefined {
  const state: string | undefined = trade?.state;
  return UNDONE_TRADE_STATES.find((undone) => undone === state);
}

/**
 * The state a trade was undone to, when this change undid it: a trade with a `clientRef` (placed through an
 * order API) that moved from any other state to CANCELLED or FAILED. A trade first read already undone is not
 * one (the first sync would report the account's whole history); a removal is not either.
 */
export function undoneBy(
  change: StateChange,
  previous: Trade | undefined,
  value: Trade | undefined,
): UndoneTradeState | undefined {
  if (change !== 'state-changed' || value === undefined || !value.clientRef) return undefined;
  const now = undoneState(value);
  return now !== undefined && undoneState(previous) === undefined ? now : undefined;
}

/** The mirror's hook for trades: counts and logs each trade undone. */
export function watchUndoneTrades(
  counter: Counter<'state'>,
  logger: JsonLogger,
): (change: StateChange, previous: Trade | undefined, value: Trade | undefined) => void {
  return (change, previous, value) => {
    const state = undoneBy(change, previous, value);
    if (state === undefined || value === undefined) return;
    counter.inc({ state });
    logger.warn(
      'a trade of a gateway order was undone at the venue: it will not settle (execution takes its fill back)',
      {
        tradeUuid: value.uuid.slice(0, 64),
        clientRef: (value.clientRef ?? '').slice(0, 64),
        tradeRef: value.tradeRef?.slice(0, 64),
        from: previous?.state?.slice(0, 32),
        state,
      },
    );
  };
}

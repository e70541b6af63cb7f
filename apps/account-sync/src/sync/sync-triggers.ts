/**
 * The seam between what learns that the account changed (an order outcome, a webhook, a withdrawal) and the
 * REST sync that reads the changed resources again. Provided in Nest under the token `SYNC_TRIGGERS` by the
 * sync module; the transaction ledger and the withdrawals inject it. Beside it, `KNOWN_ACCOUNT_GROUPS` tells which
 * account groups the sync's last balances read listed (withdrawals check a request's group against them).
 *
 * `refreshAfter` never blocks and never throws: it schedules a refresh of the resources the cause touches
 * (coalesced with other causes arriving within `SYNC_TRIGGER_DELAY_MS`), within the process's REST budget.
 */
import type { TransactionRecord } from '#venue-api';

export const SYNC_TRIGGERS = Symbol('SYNC_TRIGGERS');

/** Every resource the REST sync mirrors (also the `resource` label of the sync metrics). */
export const SYNC_RESOURCES = [
  'balances',
  'trades',
  'transactions',
  'transfers',
  'accountDetails',
  'beneficiaries',
  'senders',
  'creditLimits',
  'pairs',
] as const;
export type SyncResource = (typeof SYNC_RESOURCES)[number];

export type RefreshCause =
  /** A transaction leg arrived (webhook) or changed state: balances, and the trade it belongs to. */
  | { kind: 'transaction'; record: TransactionRecord }
  /** A withdrawal was submitted, cancelled or changed state: balances and transactions. */
  | { kind: 'withdrawal'; accountGroupUuid?: string }
  /** An order outcome (from the connector): balances, trades, transactions, credit limits. */
  | { kind: 'order-outcome'; clientRequestId: string }
  /** Anything else: exactly these resources. */
  | { kind: 'resources'; resources: readonly SyncResource[] };

export interface SyncTriggers {
  refreshAfter(cause: RefreshCause): void;
}

/** Provided under `KNOWN_ACCOUNT_GROUPS` by the sync module, beside `SYNC_TRIGGERS`. */
export const KNOWN_ACCOUNT_GROUPS = Symbol('KNOWN_ACCOUNT_GROUPS');

export interface KnownAccountGroups {
  /**
   * The account groups the last balances read listed (§2.6: every group of the account); undefined before the first
   * read of this life. Withdrawals check a request's group against it before asking the venue (tester t2 F2).
   */
  knownAccountGroups(): ReadonlySet<string> | undefined;
}

/** The resources a cause touches. */
export function resourcesTouchedBy(cause: RefreshCause): readonly SyncResource[] {
  switch (cause.kind) {
    case 'transaction':
      return cause.record.tradeId !== undefined || cause.record.tradeRef !== undefined
        ? ['balances', 'trades', 'creditLimits']
        : ['balances'];
    case 'withdrawal':
      return ['balances', 'transactions'];
    case 'order-outcome':
      return ['balances', 'trades', 'transactions', 'creditLimits'];
    case 'resources':
      return cause.resources;
  }
}

/**
 * The trade a cause says has probably moved: a trade leg that reached a final state (its trade settled or was
 * undone). The trade run looks it up by tradeRef rather than leaving it to the sweep (trade-reads.ts).
 */
export function movedTradeOf(cause: RefreshCause): string | undefined {
  if (cause.kind !== 'transaction') return undefined;
  const { tradeRef, transactionState } = cause.record;
  return tradeRef !== undefined && tradeRef !== '' && transactionState !== 'PENDING' ? tradeRef : undefined;
}

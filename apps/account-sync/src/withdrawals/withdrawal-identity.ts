/**
 * Which withdrawal request is which. A request's id is a digest of the gateway account and the caller's
 * idempotency key; it travels to the venue as the reference `gw:<id>` at the start of the comment, the only way to
 * find a request in the venue's lists before its uuid is known. The lists show the requests of every member of a
 * group (§2.7), so a row is taken as ours only when its reference is ours *and* every field it shows agrees with
 * the request: another gateway account (or deployment) using the same key never lends us its row.
 */
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { requestIdOfComment, sameAccountGroup, type WithdrawalView } from '#contracts';
import type { WithdrawalRequest } from '#venue-api';

/** 24 hex characters, the same in every process, for ever. */
export function requestIdOf(account: string, idempotencyKey: string): string {
  return digest(`withdrawal:${JSON.stringify([account, idempotencyKey])}`);
}

/**
 * The id requests got before it was scoped by account (until 2026-11-27): still looked up by key, so a retry of
 * such a request finds it and is never sent a second time.
 */
export function legacyRequestIdOf(idempotencyKey: string): string {
  return digest(`withdrawal:${idempotencyKey}`);
}

/** The row carries this request's reference and nothing it shows contradicts the request. */
export function rowIsOf(view: WithdrawalView, row: WithdrawalRequest): boolean {
  if (requestIdOfComment(row.clientComment) !== view.requestId) return false;
  if (row.accountGroupUuid !== undefined && !sameAccountGroup(row.accountGroupUuid, view.accountGroupUuid))
    return false;
  if (row.ccy !== undefined && row.ccy !== view.ccy) return false;
  if (row.amount !== undefined && !sameAmount(row.amount, view.amount)) return false;
  if (
    row.bankAccount !== undefined &&
    view.bankAccountUuid !== undefined &&
    row.bankAccount.uuid !== view.bankAccountUuid
  )
    return false;
  if (row.wallet !== undefined && view.walletUuid !== undefined && row.wallet.uuid !== view.walletUuid) return false;
  return true;
}

/**
 * The rows besides the tracked one (`trackedUuid`) that are this request's too: the venue carried it out more than
 * once. The only known way is a venue that processed a submit and answered 401 (contrary to §5.5), which the REST
 * client re-sends once, freshly signed (spec-gaps C6).
 */
export function duplicatesOf(
  view: WithdrawalView,
  trackedUuid: string,
  rows: readonly WithdrawalRequest[],
): WithdrawalRequest[] {
  return rows.filter((row) => row.uuid !== trackedUuid && rowIsOf(view, row));
}

/** The same value, however written (`100.5` and `100.50`). */
export function sameAmount(listed: string, requested: string): boolean {
  try {
    return new Decimal(listed).equals(new Decimal(requested));
  } catch {
    return false; // an amount we cannot read is not evidence that the row is ours
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}

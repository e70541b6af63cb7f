/**
 * The withdrawal records rebuilt from the venue's lists after NATS lost them (a nats-server restarted on an empty
 * store). The venue keeps no idempotency key, only our reference `gw:{requestId}` in `clientComment` (WD1), and
 * the requestId is a one-way digest of the gateway account and the key (withdrawal-identity.ts): the key cannot be
 * read back, but a submit, get or cancel by the key computes the same requestId and finds the restored record.
 *
 * Pure: rows in, records out. The desk stores them (create-if-absent: a record held is never replaced), publishes
 * them, and writes the ledger mark last (`LEDGER_MARK_KEY`): a bucket without it is new or lost, and no submit of
 * a key not held is taken until the rows are restored (WD9).
 */
import {
  callerPartOfComment,
  requestIdOfComment,
  sameAccountGroup,
  WithdrawalErrorCode,
  type WithdrawalKind,
  type WithdrawalView,
} from '#contracts';
import type { WithdrawalRequest } from '#venue-api';
import type { WithdrawalRecord } from './withdrawal-machine.js';

/**
 * The mark that the records bucket is whole: written once its rows are restored (or found none). Under the send
 * marks' prefix, which every version's loader skips; never a request's mark (a requestId is 24 hex characters).
 */
export const LEDGER_MARK_KEY = 'sent.ledger-restored';

export interface RestoredRequest {
  requestId: string;
  record: WithdrawalRecord;
}

/**
 * One record per reference of ours in a list (newest first, §2.7): the oldest row carrying it is the request
 * tracked, any later one a duplicate (the venue carried it out twice, C6), kept in `duplicates` as the poll would.
 */
export function restoredRequests(
  kind: WithdrawalKind,
  rows: readonly WithdrawalRequest[],
  now: number,
): RestoredRequest[] {
  const byRequestId = new Map<string, WithdrawalRequest[]>();
  for (const row of rows) {
    const requestId = requestIdOfComment(row.clientComment);
    if (requestId !== undefined) byRequestId.set(requestId, [...(byRequestId.get(requestId) ?? []), row]);
  }
  const restored: RestoredRequest[] = [];
  for (const [requestId, found] of byRequestId) {
    const tracked = found[found.length - 1] as WithdrawalRequest;
    const duplicates = found.slice(0, -1).map((row) => row.uuid);
    restored.push({ requestId, record: { view: restoredView(kind, requestId, tracked, duplicates, now) } });
  }
  return restored;
}

function restoredView(
  kind: WithdrawalKind,
  requestId: string,
  row: WithdrawalRequest,
  duplicates: string[],
  now: number,
): WithdrawalView {
  const created = row.dateCreated === undefined ? Number.NaN : Date.parse(row.dateCreated);
  const comment = callerPartOfComment(row.clientComment);
  const bankAccountUuid = kind === 'fiat' ? row.bankAccount?.uuid : undefined;
  const walletUuid = kind === 'crypto' ? row.wallet?.uuid : undefined;
  return {
    requestId,
    idempotencyKey: '',
    kind,
    // a state the row does not show (unreadable): looked up by the polls, which move it once shown
    state: row.state ?? 'UNKNOWN',
    accountGroupUuid: row.accountGroupUuid ?? '',
    ccy: row.ccy ?? '',
    amount: row.amount ?? '',
    ...(bankAccountUuid !== undefined ? { bankAccountUuid } : {}),
    ...(walletUuid !== undefined ? { walletUuid } : {}),
    ...(comment !== undefined && comment !== '' ? { clientComment: comment } : {}),
    venueUuid: row.uuid,
    ...(row.lastUpdated !== undefined ? { venueLastUpdated: row.lastUpdated } : {}),
    ...(duplicates.length > 0 ? { duplicates } : {}),
    createdAt: Number.isFinite(created) ? created : now,
    updatedAt: now,
    restored: { at: now },
  };
}

/**
 * A restored field the venue's row did not show (`''` or absent) agrees with anything asked; one it showed must be
 * what the repeat asks. Never a reason to send: the request exists at the venue.
 */
export function restoredFieldAgrees(held: string | undefined, asked: string | undefined): boolean {
  return held === undefined || held === '' || held === asked;
}

/**
 * The account group a cancel sends: the venue's cancel takes it in its body (§4.9; `''` is refused 403). A request
 * restored from a fiat row holds none (`''`: §2.7 shows no group, R8 is our guess), so the cancel names it — never
 * guessed; unnamed, the cancel is refused and nothing sent. A group named must be the request's own when it holds
 * one (WD9).
 */
export function cancelGroupOf(
  held: string,
  named: string | undefined,
): { ok: true; group: string } | { ok: false; code: string; message: string } {
  if (held !== '' && named !== undefined && !sameAccountGroup(named, held)) {
    const message = "accountGroupUuid is not this request's account group; nothing was sent";
    return { ok: false, code: WithdrawalErrorCode.InvalidRequest, message };
  }
  const group = held !== '' ? held : named;
  if (group !== undefined) return { ok: true, group };
  return {
    ok: false,
    code: WithdrawalErrorCode.InvalidRequest,
    message:
      "this request was restored from the venue's fiat list, which does not show its account group, and the " +
      "venue's cancel needs it: ask again naming accountGroupUuid; nothing was sent",
  };
}

/**
 * Checks a withdrawal before anything is stored or sent (§4.9, §2.5 usability rules, §8), pure:
 *  - the account group is one the venue's balances list (before its account details are asked for);
 *  - amount positive; at most two decimals for fiat (§4.9), eight for crypto (R6, WD4), as written (`1.50` yes,
 *    `1.500` no: the venue judges the text) — so the venue client never refuses a request after it was stored;
 *  - the caller's comment fits beside the gateway's reference in the venue's 1024 characters;
 *  - fiat: a bank account of the group's entity, enabled, verified, currency = ccy;
 *  - crypto: a wallet of the entity, enabled, whitelisted, asset = ccy.
 */
import {
  MAX_CALLER_COMMENT,
  printableName,
  sameAccountGroup,
  WithdrawalErrorCode,
  type WithdrawalSubmitRequest,
} from '#contracts';
import type { Participant } from '#venue-api';

export interface CheckProblem {
  code: string;
  message: string;
}

/** Most decimals an amount may carry as written, by kind (§4.9 fiat; R6/WD4 crypto). Also what the send passes. */
export const AMOUNT_SCALE = { fiat: 2, crypto: 8 } as const;

/** Every problem of the request's own fields at once (one message, `; ` between them), or undefined. */
export function checkRequestShape(request: WithdrawalSubmitRequest): CheckProblem | undefined {
  const problems: string[] = [];
  const scale = request.amount.split('.')[1]?.length ?? 0;
  const maxScale = AMOUNT_SCALE[request.kind];
  if (!/[1-9]/.test(request.amount)) problems.push('amount must be positive');
  else if (scale > maxScale) {
    problems.push(`amount has ${scale} decimals; a ${request.kind} withdrawal takes at most ${maxScale} (as written)`);
  }
  if (request.ccy.trim() === '') problems.push('ccy must not be blank');
  if (request.kind === 'fiat' && (request.bankAccountUuid === undefined || request.walletUuid !== undefined)) {
    problems.push('a fiat withdrawal names bankAccountUuid (and no walletUuid)');
  }
  if (request.kind === 'crypto' && (request.walletUuid === undefined || request.bankAccountUuid !== undefined)) {
    problems.push('a crypto withdrawal names walletUuid (and no bankAccountUuid)');
  }
  if ((request.clientComment?.length ?? 0) > MAX_CALLER_COMMENT) {
    problems.push(
      `clientComment must be at most ${MAX_CALLER_COMMENT} characters (the gateway's reference takes the rest of 1024)`,
    );
  }
  return problems.length === 0 ? undefined : { code: WithdrawalErrorCode.InvalidRequest, message: problems.join('; ') };
}

/**
 * The account group among the account's groups, as the venue's balances list them (§2.6: every group, the Default
 * and each sub-account), before the venue is asked for the group's details: a request naming another group costs no
 * venue call (tester t2 F2: a flood of unknown groups took account-sync's whole REST share). `known` undefined: no
 * balances read in this life yet — the group is left to the venue's account details (a 404 is remembered). A UUID
 * is compared in either case (WD10).
 */
export function checkAccountGroup(
  accountGroupUuid: string,
  known: ReadonlySet<string> | undefined,
): CheckProblem | undefined {
  if (known === undefined || knownGroupSpelling(accountGroupUuid, known) !== undefined) return undefined;
  return {
    code: WithdrawalErrorCode.InvalidRequest,
    message: "accountGroupUuid is not one of the account's groups (as the venue's balances list them)",
  };
}

/**
 * The venue's own spelling of a known group (as its balances list it) that `accountGroupUuid` names in either case;
 * undefined when the group is not known (or nothing is known yet). What is stored and sent, so one group never
 * has two spellings downstream (idempotency repeats, the venue-row match, records, events).
 */
export function knownGroupSpelling(
  accountGroupUuid: string,
  known: ReadonlySet<string> | undefined,
): string | undefined {
  if (known === undefined) return undefined;
  if (known.has(accountGroupUuid)) return accountGroupUuid;
  for (const group of known) if (sameAccountGroup(group, accountGroupUuid)) return group;
  return undefined;
}

/**
 * A currency in a refusal: the venue's is stored as sent, and a request's is checked only by the contract, so each is
 * bounded and its unprintable characters escaped (never a raw control character in a reply or the CLI).
 */
const shown = (ccy: string): string => printableName(ccy, 16);

/** The destination's usability on the group's onboarded entity (from the account details, §4.6). */
export function checkDestination(request: WithdrawalSubmitRequest, entity: Participant): CheckProblem | undefined {
  if (request.kind === 'fiat') {
    const account = entity.bankAccounts?.find((candidate) => candidate.uuid === request.bankAccountUuid);
    const unusable = (message: string) => ({ code: WithdrawalErrorCode.BankAccountUnusable, message });
    if (account === undefined) return unusable('bank account not found on the account group’s entity');
    if (account.enabled !== true) return unusable('bank account is disabled');
    if (account.verified !== true) return unusable('bank account is not verified');
    if (account.currency !== undefined && account.currency !== request.ccy) {
      return unusable(`bank account currency is ${shown(account.currency)}, not ${shown(request.ccy)}`);
    }
    return undefined;
  }
  const wallet = entity.wallets?.find((candidate) => candidate.uuid === request.walletUuid);
  const unusable = (message: string) => ({ code: WithdrawalErrorCode.WalletUnusable, message });
  if (wallet === undefined) return unusable('wallet not found on the account group’s entity');
  if (wallet.enabled !== true) return unusable('wallet is disabled');
  if (wallet.whitelisted !== true) return unusable('wallet is not whitelisted');
  if (wallet.asset !== undefined && wallet.asset !== request.ccy) {
    return unusable(`wallet asset is ${shown(wallet.asset)}, not ${shown(request.ccy)}`);
  }
  return undefined;
}

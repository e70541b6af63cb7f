/**
 * Checks a withdrawal before anything is stored or sent (§4.9, §2.5 usability rules, §8), pure:
 *  - amount positive; fiat at most two decimals as written (`1.50` yes, `1.500` no: the venue judges the text);
 *  - the caller's comment fits beside the gateway's reference in the venue's 1024 characters;
 *  - fiat: a bank account of the group's entity, enabled, verified, currency = ccy;
 *  - crypto: a wallet of the entity, enabled, whitelisted, asset = ccy.
 */
import { MAX_CALLER_COMMENT, WithdrawalErrorCode, type WithdrawalSubmitRequest } from '#contracts';
import type { Participant } from '#venue-api';

export interface CheckProblem {
  code: string;
  message: string;
}

const FIAT_SCALE = 2;

export function checkRequestShape(request: WithdrawalSubmitRequest): CheckProblem | undefined {
  const invalid = (message: string) => ({ code: WithdrawalErrorCode.InvalidRequest, message });
  if (!/[1-9]/.test(request.amount)) return invalid('amount must be positive');
  const scale = request.amount.split('.')[1]?.length ?? 0;
  if (request.kind === 'fiat' && scale > FIAT_SCALE) {
    return invalid(`amount has ${scale} decimals; a fiat withdrawal takes at most ${FIAT_SCALE} (as written)`);
  }
  if (request.kind === 'fiat' && (request.bankAccountUuid === undefined || request.walletUuid !== undefined)) {
    return invalid('a fiat withdrawal names bankAccountUuid (and no walletUuid)');
  }
  if (request.kind === 'crypto' && (request.walletUuid === undefined || request.bankAccountUuid !== undefined)) {
    return invalid('a crypto withdrawal names walletUuid (and no bankAccountUuid)');
  }
  if ((request.clientComment?.length ?? 0) > MAX_CALLER_COMMENT) {
    return invalid(
      `clientComment must be at most ${MAX_CALLER_COMMENT} characters (the gateway's reference takes the rest of 1024)`,
    );
  }
  return undefined;
}

/** The destination's usability on the group's onboarded entity (from the account details, §4.6). */
export function checkDestination(request: WithdrawalSubmitRequest, entity: Participant): CheckProblem | undefined {
  if (request.kind === 'fiat') {
    const account = entity.bankAccounts?.find((candidate) => candidate.uuid === request.bankAccountUuid);
    const unusable = (message: string) => ({ code: WithdrawalErrorCode.BankAccountUnusable, message });
    if (account === undefined) return unusable('bank account not found on the account group’s entity');
    if (account.enabled !== true) return unusable('bank account is disabled');
    if (account.verified !== true) return unusable('bank account is not verified');
    if (account.currency !== undefined && account.currency !== request.ccy) {
      return unusable(`bank account currency is ${account.currency.slice(0, 16)}, not ${request.ccy}`);
    }
    return undefined;
  }
  const wallet = entity.wallets?.find((candidate) => candidate.uuid === request.walletUuid);
  const unusable = (message: string) => ({ code: WithdrawalErrorCode.WalletUnusable, message });
  if (wallet === undefined) return unusable('wallet not found on the account group’s entity');
  if (wallet.enabled !== true) return unusable('wallet is disabled');
  if (wallet.whitelisted !== true) return unusable('wallet is not whitelisted');
  if (wallet.asset !== undefined && wallet.asset !== request.ccy) {
    return unusable(`wallet asset is ${wallet.asset.slice(0, 16)}, not ${request.ccy}`);
  }
  return undefined;
}

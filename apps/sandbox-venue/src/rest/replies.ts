/** Failure bodies per endpoint family (§7 and spec-gaps R2–R5), in one place. */
import type { EndpointFamily, VenueReply } from './venue-route.js';

export type AuthFailure = 'signature' | 'nonce';

const ms = (now: number): string => String(Math.trunc(now));

export function withdrawalError(status: number, message: string): VenueReply {
  return { status, body: { success: false, message } };
}

export const WithdrawalMessage = {
  Unauthorized: 'Unauthorized',
  InvalidSignedParams: 'Invalid signed params',
  MoveFundsRequired: 'MOVE FUNDS permission required',
  NoPermission: 'You do not have permission to perform this action',
  NotFound: 'Request not found',
  NotCancellable: 'Request can not be cancelled in current state',
  Internal: 'Error while processing request',
  BankNotFound: 'Bank account not found in account group',
  BankUnusable: 'Bank account is disabled or is not verified',
  BankCurrency: 'Bank account does not support the requested currency',
  InsufficientFunds: 'Insufficient funds',
  WalletNotFound: 'Wallet not found in account group',
  WalletUnusable: 'Wallet is disabled or is not whitelisted',
  WalletAsset: 'Wallet does not support the requested asset',
} as const;

export function authFailureReply(family: EndpointFamily, reason: AuthFailure, now: number): VenueReply {
  switch (family) {
    case 'withdrawal':
      return withdrawalError(401, WithdrawalMessage.Unauthorized);
    case 'participant':
      return {
        status: 200,
        body: { resultCode: reason === 'nonce' ? 'INVALID_NONCE_OR_TONCE' : 'UNAUTHORISED', timestamp: ms(now) },
      };
    case 'orderState':
    case 'token':
      return { status: 401, body: { resultCode: 'UNAUTHORISED', timestamp: ms(now) } };
    case 'trades':
      return {
        status: 401,
        body: {
          error: 'INVALID_SIGNATURE',
          message: reason === 'nonce' ? 'Invalid nonce or tonce' : 'Invalid API key or signature',
        },
      };
    case 'general':
      return reason === 'nonce'
        ? { status: 401, body: { error: 'INVALID_NONCE_OR_TONCE', message: 'Invalid nonce or tonce' } }
        : { status: 401, body: { error: 'INVALID_SIGNATURE', message: 'Invalid API key or signature' } };
  }
}

/** §8, R3: 30 requests per sliding second per IP. */
export function throttledReply(family: EndpointFamily): VenueReply {
  if (family === 'withdrawal') return withdrawalError(401, WithdrawalMessage.Unauthorized);
  return {
    status: 429,
    body: { error: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' },
    headers: { 'Retry-After': '1' },
  };
}

/** Injected 5xx (operator fault) and unexpected failures. */
export function serverErrorReply(family: EndpointFamily, status: number, now: number): VenueReply {
  if (family === 'withdrawal') return withdrawalError(status, WithdrawalMessage.Internal);
  if (family === 'participant' || family === 'orderState' || family === 'token') {
    return { status, body: { resultCode: 'INTERNAL_ERROR', timestamp: ms(now) } };
  }
  return { status, body: { error: 'INTERNAL_ERROR', message: 'Error while processing request' } };
}

/** R4 */
export function methodNotAllowedReply(now: number): VenueReply {
  return { status: 405, body: { apiVersion: '3', timestamp: ms(now), error: 'Method Not Allowed' } };
}

/** Validation failures outside withdrawals (trades per §7.3; the rest per spec-gaps). */
export function invalidParameterReply(family: EndpointFamily, message: string, now: number): VenueReply {
  switch (family) {
    case 'withdrawal':
      return withdrawalError(403, WithdrawalMessage.InvalidSignedParams);
    case 'participant':
      return { status: 200, body: { resultCode: 'INVALID_PARAMETERS', timestamp: ms(now) } };
    case 'orderState':
      return { status: 400, body: { resultCode: 'INVALID_PARAMETERS', timestamp: ms(now) } };
    case 'token':
      return { status: 400, body: { resultCode: 'INVALID_PARAMETERS', timestamp: ms(now) } };
    case 'trades':
    case 'general':
      return { status: 400, body: { error: 'INVALID_PARAMETER', message } };
  }
}

/** §7.3 trades 404 (and balances, by choice) for an account group that is not the caller's. */
export function invalidAccountGroupReply(): VenueReply {
  return { status: 404, body: { error: 'INVALID_ACCOUNT_GROUP', message: 'Account group not found' } };
}

/** R5 framework body for a missing required query parameter or header. */
export function frameworkBadRequest(path: string, nowIso: string): VenueReply {
  return { status: 400, body: { timestamp: nowIso, status: 400, error: 'Bad Request', path } };
}

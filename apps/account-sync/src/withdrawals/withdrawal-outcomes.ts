/** Every §7.2 answer of a submit or a cancel, as a typed result. */
import { WithdrawalErrorCode } from '#contracts';
import {
  InvalidVenueRequestError,
  VenueAuthError,
  VenueConflictError,
  VenueConnectionError,
  VenueNotFoundError,
  VenueRateLimitedError,
  VenueRestError,
  VenueValidationError,
  VenueWrongMethodError,
} from '#venue-api';

export type SubmitFailure =
  /** Certainly not created: refused by the venue (401/403/422…) or never sent. */
  | { kind: 'refused'; code: string; message: string }
  /** 500, timeout, lost answer, unreadable success: may have been created. */
  | { kind: 'unknown'; reason: string };

function venueMessage(error: VenueRestError): string {
  return (error.venueMessage ?? error.message).slice(0, 256);
}

export function classifySubmitFailure(error: unknown): SubmitFailure {
  if (error instanceof InvalidVenueRequestError) {
    return { kind: 'refused', code: WithdrawalErrorCode.InvalidRequest, message: error.message.slice(0, 256) };
  }
  if (error instanceof VenueAuthError) {
    return { kind: 'refused', code: WithdrawalErrorCode.Unauthorized, message: venueMessage(error) };
  }
  if (error instanceof VenueValidationError) {
    if (error.status === 403)
      return { kind: 'refused', code: WithdrawalErrorCode.Forbidden, message: venueMessage(error) };
    if (/insufficient funds/i.test(error.venueMessage ?? '')) {
      return { kind: 'refused', code: WithdrawalErrorCode.InsufficientFunds, message: venueMessage(error) };
    }
    return { kind: 'refused', code: WithdrawalErrorCode.VenueRejected, message: venueMessage(error) };
  }
  if (error instanceof VenueNotFoundError || error instanceof VenueWrongMethodError) {
    return { kind: 'refused', code: WithdrawalErrorCode.VenueRejected, message: venueMessage(error) };
  }
  if (error instanceof VenueRateLimitedError || error instanceof VenueConnectionError) {
    return { kind: 'refused', code: WithdrawalErrorCode.VenueUnavailable, message: venueMessage(error) };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { kind: 'unknown', reason: reason.slice(0, 256) };
}

export type CancelFailure = { code: string; message: string; settled: boolean };

/** `settled`: the venue's answer is definitive (the request's state is what it was). */
export function classifyCancelFailure(error: unknown): CancelFailure {
  if (error instanceof VenueConflictError) {
    return { code: WithdrawalErrorCode.NotCancellable, message: venueMessage(error), settled: true };
  }
  if (error instanceof VenueNotFoundError) {
    return { code: WithdrawalErrorCode.NotFound, message: venueMessage(error), settled: true };
  }
  if (error instanceof VenueAuthError) {
    return { code: WithdrawalErrorCode.Unauthorized, message: venueMessage(error), settled: true };
  }
  if (error instanceof VenueValidationError) {
    return { code: WithdrawalErrorCode.Forbidden, message: venueMessage(error), settled: true };
  }
  if (error instanceof VenueRateLimitedError || error instanceof VenueConnectionError) {
    return { code: WithdrawalErrorCode.VenueUnavailable, message: venueMessage(error), settled: true };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { code: WithdrawalErrorCode.OutcomeUnknown, message: reason.slice(0, 256), settled: false };
}

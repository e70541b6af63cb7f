/**
 * Every error code and message word the venue uses (§7), and the sandbox's own codes (docs/spec-gaps.md),
 * in one place. Codes are compared, never messages, except on withdrawal endpoints where the message is
 * the only discriminator the venue sends (§7.2).
 */

/** §7.1 subscribe codes (acknowledgement `code` with `success:false`) and order codes. */
export const VenueCode = {
  /** §7.1 instrument problem; W16: instrument blank. */
  InstrumentBlank: 'RFS100004',
  /** §7.1 instrument problem; W16: instrument not of the `BASE.QUOTE` shape. */
  InstrumentMalformed: 'RFS100005',
  CurrencyNotInPair: 'RFS100008',
  QuantityInvalid: 'RFS100009',
  /** No price at that size, pair or tenor (including a pair string that matches nothing). */
  NoPrice: 'RFS100011',
  ServiceFailure: 'RFS100013',
  SubscriptionAlreadyHeld: 'RFS100017',
  TenorBlank: 'RFS100021',
  /** §7.1 account group blank; W16: also an account group unknown to the user. */
  AccountGroupBlank: 'RFS600004',
  PairDisabled: 'PRE200035',
  QuoteExpired: 'RFS100019',
  QuoteOfAnotherUser: 'RFS100020',
  QuoteQuantityUsedUp: 'RFS600021',
} as const;
export type VenueCode = (typeof VenueCode)[keyof typeof VenueCode];

/**
 * §7.1 subscribe refusals that judge the request itself (instrument, currency, quantity, tenor, account group,
 * pair disabled, no price at that size, pair or tenor): the same request gets the same answer — save `RFS100011`
 * while the venue has halted the instrument, until it resumes (W24: a halt and a size, pair or tenor the venue never
 * prices answer the same code; a stream held when the halt came ended `stopped` `INSTRUMENT_HALTED`). Any other
 * refusal — the service's own failure, a rate limit, a code the spec does not name — may pass if asked again.
 */
export const DEFINITIVE_SUBSCRIBE_REFUSALS: ReadonlySet<string> = new Set<string>([
  VenueCode.InstrumentBlank,
  VenueCode.InstrumentMalformed,
  VenueCode.CurrencyNotInPair,
  VenueCode.QuantityInvalid,
  VenueCode.NoPrice,
  VenueCode.TenorBlank,
  VenueCode.AccountGroupBlank,
  VenueCode.PairDisabled,
]);

/**
 * Codes the sandbox invents where the spec says "not shown" (W8, W9, W14–W16): UPPER_SNAKE words, so they
 * never collide with the venue's `RFS…`/`PRE…` numbers.
 */
export const SandboxCode = {
  InvalidSessionId: 'INVALID_SESSION_ID',
  SessionReplaced: 'SESSION_REPLACED',
  MessageRateLimited: 'MESSAGE_RATE_LIMITED',
  InvalidMessage: 'INVALID_MESSAGE',
  InvalidOrder: 'INVALID_ORDER',
  OrderRateLimited: 'ORDER_RATE_LIMITED',
  OrderNotFound: 'ORDER_NOT_FOUND',
  InvalidSettlementDetails: 'INVALID_SETTLEMENT_DETAILS',
} as const;
export type SandboxCode = (typeof SandboxCode)[keyof typeof SandboxCode];

/** Where a code appears. */
export type VenueCodeScope = 'subscribe' | 'order' | 'connection';

export interface VenueCodeInfo {
  meaning: string;
  scope: VenueCodeScope;
}

const CODE_INFO: Readonly<Record<VenueCode | SandboxCode, VenueCodeInfo>> = {
  RFS100004: { scope: 'subscribe', meaning: 'instrument problem (blank)' },
  RFS100005: { scope: 'subscribe', meaning: 'instrument problem (not BASE.QUOTE)' },
  RFS100008: { scope: 'subscribe', meaning: "currency is not one of the pair's currencies" },
  RFS100009: { scope: 'subscribe', meaning: 'quantity problem' },
  RFS100011: { scope: 'subscribe', meaning: 'no price at that size, pair or tenor' },
  RFS100013: { scope: 'subscribe', meaning: 'unexpected failure on the service side' },
  RFS100017: { scope: 'subscribe', meaning: 'subscription already held' },
  RFS100021: { scope: 'subscribe', meaning: 'tenor blank' },
  RFS600004: { scope: 'subscribe', meaning: 'account group blank or unknown' },
  PRE200035: { scope: 'subscribe', meaning: 'pair disabled for the account' },
  RFS100019: { scope: 'order', meaning: 'quote expired' },
  RFS100020: { scope: 'order', meaning: 'quote issued to another user' },
  RFS600021: { scope: 'order', meaning: "quote's quoted quantity already used up" },
  INVALID_SESSION_ID: { scope: 'connection', meaning: 'sessionId breaks the identifier rules; the socket closes' },
  SESSION_REPLACED: { scope: 'connection', meaning: 'a newer connection joined with this sessionId; closing' },
  MESSAGE_RATE_LIMITED: { scope: 'connection', meaning: 'over 30 messages per second per account; message dropped' },
  INVALID_MESSAGE: { scope: 'connection', meaning: 'not a JSON object with a messageType string' },
  INVALID_ORDER: { scope: 'order', meaning: 'order request fields invalid; not executed' },
  ORDER_RATE_LIMITED: { scope: 'order', meaning: 'over 1 order per 250 ms per account; not executed' },
  ORDER_NOT_FOUND: { scope: 'order', meaning: 'no session-bound order with that clientRequestId' },
  INVALID_SETTLEMENT_DETAILS: { scope: 'subscribe', meaning: 'beneficiaryDetails and senderDetails together' },
};

/** The known codes of one scope (e.g. a metric's label values that start at 0). */
export function venueCodesOf(scope: VenueCodeScope): string[] {
  return Object.entries(CODE_INFO)
    .filter(([, info]) => info.scope === scope)
    .map(([code]) => code);
}

/** Meaning and scope of a known code, or undefined (the full venue list is not shown, §7.1). */
export function venueCodeInfo(code: string): VenueCodeInfo | undefined {
  return Object.prototype.hasOwnProperty.call(CODE_INFO, code) ? CODE_INFO[code as VenueCode] : undefined;
}

/** A human-readable line for logs: `RFS100019 (quote expired)`, or `X (unknown code)`. */
export function describeVenueCode(code: string): string {
  if (code === '') return '(no code)';
  const info = venueCodeInfo(code);
  return `${code} (${info === undefined ? 'unknown code' : info.meaning})`;
}

/** §7.3 and R2–R3: `error` / `resultCode` words of REST bodies. */
export const RestErrorWord = {
  Ok: 'OK',
  InvalidParameter: 'INVALID_PARAMETER',
  InvalidSignature: 'INVALID_SIGNATURE',
  InvalidAccountGroup: 'INVALID_ACCOUNT_GROUP',
  InvalidParameters: 'INVALID_PARAMETERS',
  Unauthorised: 'UNAUTHORISED',
  InvalidNonceOrTonce: 'INVALID_NONCE_OR_TONCE',
  /** R3 (sandbox choice): 429 body on non-withdrawal endpoints. */
  TooManyRequests: 'TOO_MANY_REQUESTS',
} as const;
export type RestErrorWord = (typeof RestErrorWord)[keyof typeof RestErrorWord];

/** §7.2 (and R6 for crypto): the `message` of `{success:false, message}` on withdrawal endpoints. */
export const WithdrawalMessage = {
  /** 401: authentication, signature, nonce/tonce, unparseable body, or throttling. */
  Unauthorized: 'Unauthorized',
  /** 403: body missing or failing field validation (field not named). */
  InvalidSignedParams: 'Invalid signed params',
  MoveFundsRequired: 'MOVE FUNDS permission required',
  /** 403: no ROLE_OPERATIONS on the account group. */
  NoPermission: 'You do not have permission to perform this action',
  RequestNotFound: 'Request not found',
  CannotCancel: 'Request can not be cancelled in current state',
  /** 500: outcome undefined; check the list before resending. */
  ProcessingError: 'Error while processing request',
  BankAccountNotFound: 'Bank account not found in account group',
  BankAccountUnusable: 'Bank account is disabled or is not verified',
  BankAccountCurrency: 'Bank account does not support the requested currency',
  InsufficientFunds: 'Insufficient funds',
  WalletNotFound: 'Wallet not found in account group',
  WalletUnusable: 'Wallet is disabled or is not whitelisted',
  WalletAsset: 'Wallet does not support the requested asset',
} as const;
export type WithdrawalMessage = (typeof WithdrawalMessage)[keyof typeof WithdrawalMessage];

/**
 * Dialects: the sandbox playing the other plausible readings of what the spec does not show (spec-gaps
 * "Dialects"). A client that works against every dialect does not depend on our guesses. `reference` is
 * our own reading; `alternate` takes the other reading on every axis but `tonceOrder`; each axis can be set on its
 * own.
 */
export type TokenResponseShape = 'token' | 'data.token' | 'string';
/** `minimal`: an order reply with only its status, ids and (on failure) code and message. */
export type OrderReplyShape = 'full' | 'minimal';
/** Which frames answer an unsubscribe, in which order (W10). */
export type UnsubscribeReplies =
  'unsubscribe-only' | 'unsubscribe-then-streamStop' | 'streamStop-then-unsubscribe' | 'streamStop-only';
/** Price subscriptions when a connection of a (client-chosen) session ends: gone, or kept for its next one. */
export type SubscriptionsOnReconnect = 'dropped' | 'held';
/**
 * §4.11 shapes (not shown): `named` = our guesses R10–R12; `renamed` = the same facts under other names
 * (limits `accountGroup{uuid,name}`/`currency`/`creditLimit`/`utilised`/`remaining`, pairs `symbol` `BTC/USD`/
 * `baseCurrency`/`quoteCurrency`/`minSize`/`maxSize`, transfers with `direction` and `reference` besides).
 */
export type AccountExtrasShape = 'named' | 'renamed';
/**
 * A subscribe over the 30 messages/s budget (W14): `ack` — refused by its one acknowledgement (§2.1 rules 1–2:
 * every subscribe gets exactly one, a refusal never a separate error frame) with code `MESSAGE_RATE_LIMITED`;
 * `error` — dropped with an `error` frame like any other message over the budget (a venue whose limiter sits
 * before its subscribe handling).
 */
export type RateLimitedSubscribe = 'ack' | 'error';
/**
 * "At most 4 updates per second per connection" (§6.2, §8; W13): `per-stream` — every subscription gets an
 * update on each 250 ms tick; `per-connection` — the connection gets one update per tick, its subscriptions in
 * turn (each of N streams then hears from the venue every N/4 s).
 */
export type PriceCadence = 'per-stream' | 'per-connection';
/**
 * Tonces on the withdrawal, order-state and participant endpoints (§5.4: they "treat a replayed, lower or stale
 * value as an authentication failure"; §5.5 lists for tonces only the out-of-window one): `once` — each value
 * accepted once per key, in any order; `increasing` — also refused when not above the highest tonce the key
 * had accepted (a high-water mark, as for nonces), so requests of one key that overtake each other fail.
 */
export type TonceOrder = 'once' | 'increasing';
/**
 * How the older connection of a session learns that a newer one took it (W19; §4.2 says only that it is closed):
 * `error-then-4001` — an `error` frame SESSION_REPLACED, then close code 4001 with that code as its reason;
 * `error-then-1008` — the same error frame, then a policy-violation close (1008) with no reason.
 */
export type ReplacedClose = 'error-then-4001' | 'error-then-1008';
/**
 * ips.json's `change_notice.effective_date` (§4.12: "an object carrying a message and an effective_date", types not
 * shown): `iso` — the date as the operator gave it (a string); `epoch-ms` — the same instant as a JSON number of
 * epoch milliseconds (WH14).
 */
export type IpsNoticeDate = 'iso' | 'epoch-ms';
/**
 * The 2xx of a crypto submit and a crypto cancel (§4.9: "request and response fields: not shown"; fiat's are shown,
 * `{success: true, uuid}`, and stay so): `success-uuid` — fiat's shape; `success-only` — `{"success":true}`, no
 * uuid; `no-content` — 204 with no body (WD7).
 */
export type CryptoWithdrawalReply = 'success-uuid' | 'success-only' | 'no-content';
/**
 * A fiat withdrawal list row (§2.7 shows uuid, amount, ccy, state, withdrawalMethod, bankAccount, clientComment and the
 * two dates; "further fields of a fiat row: not shown"): `with-group` — also its account group (`accountGroupUuid`,
 * `accountGroupName`) and `requestor`, as crypto rows carry them; `shown-fields` — only the fields shown (WD9).
 */
export type FiatWithdrawalRow = 'with-group' | 'shown-fields';

export interface Dialect {
  tokenResponse: TokenResponseShape;
  orderReply: OrderReplyShape;
  unsubscribeReplies: UnsubscribeReplies;
  subscriptionsOnReconnect: SubscriptionsOnReconnect;
  /** With `held`: how long the subscriptions wait for the session's next connection. */
  subscriptionHoldMs: number;
  accountExtras: AccountExtrasShape;
  rateLimitedSubscribe: RateLimitedSubscribe;
  priceCadence: PriceCadence;
  /** Set on its own too: with several processes on one key, `increasing` fails some of their requests by design. */
  tonceOrder: TonceOrder;
  replacedClose: ReplacedClose;
  ipsNoticeDate: IpsNoticeDate;
  cryptoWithdrawalReply: CryptoWithdrawalReply;
  fiatWithdrawalRow: FiatWithdrawalRow;
}

export type DialectName = 'reference' | 'alternate';

export const SANDBOX_DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  reference: {
    tokenResponse: 'token',
    orderReply: 'full',
    unsubscribeReplies: 'unsubscribe-only',
    subscriptionsOnReconnect: 'dropped',
    subscriptionHoldMs: 60_000,
    accountExtras: 'named',
    rateLimitedSubscribe: 'ack',
    priceCadence: 'per-stream',
    tonceOrder: 'once',
    replacedClose: 'error-then-4001',
    ipsNoticeDate: 'iso',
    cryptoWithdrawalReply: 'success-uuid',
    fiatWithdrawalRow: 'with-group',
  },
  alternate: {
    tokenResponse: 'data.token',
    orderReply: 'minimal',
    unsubscribeReplies: 'streamStop-then-unsubscribe',
    subscriptionsOnReconnect: 'held',
    subscriptionHoldMs: 60_000,
    accountExtras: 'renamed',
    rateLimitedSubscribe: 'error',
    priceCadence: 'per-connection',
    tonceOrder: 'once',
    replacedClose: 'error-then-1008',
    ipsNoticeDate: 'epoch-ms',
    cryptoWithdrawalReply: 'success-only',
    fiatWithdrawalRow: 'shown-fields',
  },
};

/** The values each axis accepts (for the environment's validation and the docs). */
export const DIALECT_AXES = {
  tokenResponse: ['token', 'data.token', 'string'],
  orderReply: ['full', 'minimal'],
  unsubscribeReplies: [
    'unsubscribe-only',
    'unsubscribe-then-streamStop',
    'streamStop-then-unsubscribe',
    'streamStop-only',
  ],
  subscriptionsOnReconnect: ['dropped', 'held'],
  accountExtras: ['named', 'renamed'],
  rateLimitedSubscribe: ['ack', 'error'],
  priceCadence: ['per-stream', 'per-connection'],
  tonceOrder: ['once', 'increasing'],
  replacedClose: ['error-then-4001', 'error-then-1008'],
  ipsNoticeDate: ['iso', 'epoch-ms'],
  cryptoWithdrawalReply: ['success-uuid', 'success-only', 'no-content'],
  fiatWithdrawalRow: ['with-group', 'shown-fields'],
} as const;

/** A preset by name, with any axis overridden. */
export function dialectOf(
  base: DialectName | Partial<Dialect> = 'reference',
  overrides: Partial<Dialect> = {},
): Dialect {
  const preset = typeof base === 'string' ? SANDBOX_DIALECTS[base] : { ...SANDBOX_DIALECTS.reference, ...base };
  return { ...preset, ...definedOnly(overrides) };
}

function definedOnly(values: Partial<Dialect>): Partial<Dialect> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<Dialect>;
}

/** The token response body in this dialect (§4.3 shows only that a token is returned). */
export function tokenResponseBody(
  shape: TokenResponseShape,
  token: string,
  envelope: Record<string, string>,
): string | Record<string, string | Record<string, string | undefined>> {
  if (shape === 'string') return token;
  if (shape === 'data.token') {
    return { ...omit(envelope, 'expiresAt'), data: { token, expiresAt: envelope['expiresAt'] ?? '' } };
  }
  return { token, ...envelope };
}

function omit(record: Record<string, string>, key: string): Record<string, string> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

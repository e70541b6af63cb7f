/**
 * The NATS subjects of the gateway, in one place. Layout (prefix default `gw.v1`, configurable per
 * deployment; `account` names the venue account a connector serves):
 *
 *   {prefix}.price.{group}.{BASE}.{QUOTE}.{tenor}.{currency}.{size}   prices, last value per subject
 *   {prefix}.{account}.stream.subscribe                                request/reply: ask for a stream
 *   {prefix}.{account}.stream.release                                  request/reply: drop interest
 *   {prefix}.{account}.order.command                                   order commands (JetStream, work queue)
 *   {prefix}.{account}.order.outcome.{clientRequestId}                 order outcomes (JetStream, durable)
 *   {prefix}.{account}.order.recall                                    orders not to send (core, best effort)
 *   {prefix}.{account}.account-groups.get                              request/reply: account-group lookup
 *   {prefix}.{account}.connector.status                                session status, last value
 *
 * Every BTC price of one account group: `{prefix}.price.{group}.BTC.>`.
 * Tokens may not contain `.`, `*`, `>` or whitespace, so a decimal size is written with `_` for its point
 * (`0.5` → `0_5`) after normalisation (no trailing zeros, no exponent).
 */
export const DEFAULT_SUBJECT_PREFIX = 'gw.v1';

/** One NATS subject token: no `.`, `*`, `>` or whitespace (an account, a tenor, an account group). */
export const SUBJECT_TOKEN = /^[^\s.*>]+$/;
/** A subject prefix: one or more subject tokens joined by `.` (`gw.v1`). */
export const SUBJECT_PREFIX = /^[^\s.*>]+(\.[^\s.*>]+)*$/;

export class Subjects {
  constructor(
    readonly prefix: string = DEFAULT_SUBJECT_PREFIX,
    readonly account: string = 'default',
  ) {
    for (const part of prefix.split('.')) assertToken(part, 'subject prefix');
    assertToken(account, 'account');
  }

  price(key: PriceSubjectKey): string {
    const [base, quote] = splitInstrument(key.instrument);
    return [
      this.prefix,
      'price',
      token(key.accountGroup, 'accountGroup'),
      base,
      quote,
      token(key.tenor, 'tenor'),
      token(key.currency, 'currency'),
      sizeToken(key.quantity),
    ].join('.');
  }

  /** Every price subject (for stream definitions and wildcard subscribers). */
  get allPrices(): string {
    return `${this.prefix}.price.>`;
  }

  get streamSubscribe(): string {
    return this.scoped('stream.subscribe');
  }
  get streamRelease(): string {
    return this.scoped('stream.release');
  }
  get orderCommand(): string {
    return this.scoped('order.command');
  }
  orderOutcome(clientRequestId: string): string {
    return this.scoped(`order.outcome.${token(clientRequestId, 'clientRequestId')}`);
  }
  get allOrderOutcomes(): string {
    return this.scoped('order.outcome.>');
  }
  /** OrderContradiction (JetStream, in the order outcome stream): connector → execution. */
  orderContradiction(clientRequestId: string): string {
    return this.scoped(`order.contradiction.${token(clientRequestId, 'clientRequestId')}`);
  }
  get allOrderContradictions(): string {
    return this.scoped('order.contradiction.>');
  }
  /** OrderRecall (core NATS): execution → connector. */
  get orderRecall(): string {
    return this.scoped('order.recall');
  }
  get accountGroups(): string {
    return this.scoped('account-groups.get');
  }
  get connectorStatus(): string {
    return this.scoped('connector.status');
  }

  private scoped(rest: string): string {
    return `${this.prefix}.${this.account}.${rest}`;
  }
}

export interface PriceSubjectKey {
  accountGroup: string;
  instrument: string;
  tenor: string;
  currency: string;
  /** Decimal string as requested; normalised for the subject. */
  quantity: string;
}

/** JetStream streams and KV buckets the gateway defines (names are per account where they must be). */
export const StreamName = {
  prices: (account: string) => `GW_PRICES_${streamToken(account)}`,
  orderCommands: (account: string) => `GW_ORDER_COMMANDS_${streamToken(account)}`,
  orderOutcomes: (account: string) => `GW_ORDER_OUTCOMES_${streamToken(account)}`,
  connectorStatus: (account: string) => `GW_CONNECTOR_STATUS_${streamToken(account)}`,
  orderRecalls: (account: string) => `GW_ORDER_RECALLS_${streamToken(account)}`,
} as const;

export function splitInstrument(instrument: string): [string, string] {
  const parts = instrument.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new SubjectTokenError(`instrument must be BASE.QUOTE, got "${instrument}"`);
  }
  return [token(parts[0], 'instrument base'), token(parts[1], 'instrument quote')];
}

/** `0.50` → `0_5`, `1e-7` → `0_0000001`, `100` → `100`. Works on the string, never through a number. */
export function sizeToken(quantity: string): string {
  const plain = plainDecimal(quantity);
  return plain.replace('.', '_');
}

export class SubjectTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubjectTokenError';
  }
}

function token(value: string, what: string): string {
  assertToken(value, what);
  return value;
}

function assertToken(value: string, what: string): void {
  if (!SUBJECT_TOKEN.test(value)) throw new SubjectTokenError(`${what} "${value}" cannot be a NATS subject token`);
}

function streamToken(account: string): string {
  return account.replace(/[^A-Za-z0-9_-]/g, '_');
}

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Plain, normalised decimal text from a non-negative decimal string (scientific allowed): one spelling per value
 * (`0.010`, `0.01` and `1e-2` are `0.01`), for subjects and for comparing requests.
 */
export function plainDecimal(text: string): string {
  const match = DECIMAL.exec(text);
  if (!match) throw new SubjectTokenError(`quantity "${text}" is not a non-negative decimal`);
  const [, intPart = '', fracPart = '', expPart] = match;
  const exponent = expPart === undefined ? 0 : Number(expPart);
  let digits = intPart + fracPart;
  let point = intPart.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits = digits + '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const fraction = digits.slice(point).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

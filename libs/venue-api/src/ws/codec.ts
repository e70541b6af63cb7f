/**
 * Encoding of client → service frames (§4.2, W3, W8, W12), checked before they leave: a frame the venue
 * would refuse, or would silently change, is refused here with {@link InvalidClientMessageError}.
 *
 * - subscribe `quantity`: a positive decimal with at most 8 decimals (§8). More are *refused*, not
 *   rounded: the venue would round them and the subscription would not be the size the caller asked for.
 *   Scientific notation is written out in plain notation (same value, so the same subscription).
 * - `beneficiaryDetails` and `senderDetails` together are refused (§4.2).
 * - `clientRequestId` and `requestId` follow the sessionId identifier rules (identifier.ts).
 * Only the fields of the message type are written, in a fixed order; anything else on the object stays.
 */
import { InvalidDecimalError, assertMaxScale, parseDecimal, toPlain } from '../money/decimal.js';
import { identifierProblem } from './identifier.js';
import type {
  AccountGroupsRequest,
  BeneficiaryDetails,
  ClientMessage,
  OrderRequest,
  OrderUnsubscribeRequest,
  SenderDetails,
  SubscribeRequest,
  UnsubscribeRequest,
} from './messages.js';

export const SUBSCRIBE_QUANTITY_MAX_DECIMALS = 8;

export class InvalidClientMessageError extends Error {
  override readonly name = 'InvalidClientMessageError';
  constructor(
    readonly messageType: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${messageType}.${field} ${reason}`);
  }
}

function requireText(messageType: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new InvalidClientMessageError(messageType, field, 'must be a non-blank string');
  }
  return value;
}

function optionalText(messageType: string, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMessageError(messageType, field, 'must be a string');
  return value;
}

function requireIdentifier(messageType: string, field: string, value: unknown): string {
  const problem = identifierProblem(value);
  if (problem !== undefined) throw new InvalidClientMessageError(messageType, field, problem);
  return value as string;
}

function subscribeQuantity(value: unknown): string {
  try {
    if (typeof value !== 'string') throw new InvalidDecimalError('must be a decimal string');
    const quantity = parseDecimal(value);
    if (!quantity.isPositive() || quantity.isZero()) throw new InvalidDecimalError('must be positive');
    assertMaxScale(value, SUBSCRIBE_QUANTITY_MAX_DECIMALS);
    // Plain text goes out as written; scientific is rewritten plainly (same value, same subscription).
    return /[eE]/.test(value) ? toPlain(quantity) : value;
  } catch (error) {
    if (!(error instanceof InvalidDecimalError)) throw error;
    throw new InvalidClientMessageError('subscribe', 'quantity', error.reason);
  }
}

/** `BASE.QUOTE`: two non-empty parts, one dot, no whitespace. */
const INSTRUMENT = /^[^\s.]+\.[^\s.]+$/;

function settlementBlock<T extends BeneficiaryDetails | SenderDetails>(
  field: string,
  block: T | undefined,
  keys: readonly (keyof T & string)[],
): Record<string, string> | undefined {
  if (block === undefined) return undefined;
  if (block === null || typeof block !== 'object') {
    throw new InvalidClientMessageError('subscribe', field, 'must be an object');
  }
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = optionalText('subscribe', `${field}.${key}`, block[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function encodeSubscribe(m: SubscribeRequest): Record<string, unknown> {
  const instrument = requireText('subscribe', 'instrument', m.instrument);
  if (!INSTRUMENT.test(instrument))
    throw new InvalidClientMessageError('subscribe', 'instrument', 'must be BASE.QUOTE');
  if (m.beneficiaryDetails !== undefined && m.senderDetails !== undefined) {
    throw new InvalidClientMessageError('subscribe', 'senderDetails', 'cannot be combined with beneficiaryDetails');
  }
  return {
    messageType: 'subscribe',
    instrument,
    quantity: subscribeQuantity(m.quantity),
    currency: requireText('subscribe', 'currency', m.currency),
    accountGrpUuid: requireText('subscribe', 'accountGrpUuid', m.accountGrpUuid),
    tenor: requireText('subscribe', 'tenor', m.tenor),
    tag: optionalText('subscribe', 'tag', m.tag),
    beneficiaryDetails: settlementBlock('beneficiaryDetails', m.beneficiaryDetails, [
      'beneficiaryId',
      'payoutCurrency',
      'networkId',
    ]),
    senderDetails: settlementBlock('senderDetails', m.senderDetails, ['senderId', 'payinCurrency', 'networkId']),
  };
}

function encodeUnsubscribe(m: UnsubscribeRequest): Record<string, unknown> {
  return { messageType: 'unsubscribe', subscriptionId: requireText('unsubscribe', 'subscriptionId', m.subscriptionId) };
}

function encodeOrder(m: OrderRequest): Record<string, unknown> {
  if (m.side !== 'BUY' && m.side !== 'SELL')
    throw new InvalidClientMessageError('order', 'side', 'must be BUY or SELL');
  if (m.autoSubscribe !== undefined && typeof m.autoSubscribe !== 'boolean') {
    throw new InvalidClientMessageError('order', 'autoSubscribe', 'must be a boolean');
  }
  return {
    messageType: 'order',
    quoteId: requireText('order', 'quoteId', m.quoteId),
    side: m.side,
    clientRequestId: requireIdentifier('order', 'clientRequestId', m.clientRequestId),
    autoSubscribe: m.autoSubscribe,
  };
}

function encodeOrderUnsubscribe(m: OrderUnsubscribeRequest): Record<string, unknown> {
  return {
    messageType: 'orderUnsubscribe',
    clientRequestId: requireIdentifier('orderUnsubscribe', 'clientRequestId', m.clientRequestId),
  };
}

function encodeAccountGroups(m: AccountGroupsRequest): Record<string, unknown> {
  return {
    messageType: 'accountGroups',
    requestId: m.requestId === undefined ? undefined : requireIdentifier('accountGroups', 'requestId', m.requestId),
  };
}

/** The JSON text of a client frame. @throws InvalidClientMessageError */
export function encodeClientMessage(message: ClientMessage): string {
  const type: unknown = (message as { messageType?: unknown } | null)?.messageType;
  switch (type) {
    case 'subscribe':
      return JSON.stringify(encodeSubscribe(message as SubscribeRequest));
    case 'unsubscribe':
      return JSON.stringify(encodeUnsubscribe(message as UnsubscribeRequest));
    case 'order':
      return JSON.stringify(encodeOrder(message as OrderRequest));
    case 'orderUnsubscribe':
      return JSON.stringify(encodeOrderUnsubscribe(message as OrderUnsubscribeRequest));
    case 'accountGroups':
      return JSON.stringify(encodeAccountGroups(message as AccountGroupsRequest));
    default:
      throw new InvalidClientMessageError(String(type), 'messageType', 'is not a client message type');
  }
}

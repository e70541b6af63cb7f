import { Decimal } from '../../money.js';
import { SandboxCode } from '#venue-api';
import type { UserDirectory } from '../../ports.js';
import { currencyInfo, fitsPrecision } from '../../reference/currencies.js';
import type { InstrumentInfo } from '../../reference/instruments.js';
import type { Market } from '../market/market.js';
import { payoutNetwork, SENDER_NETWORK } from './settlement-networks.js';
import { settleDateFor } from '../market/tenor.js';

/** A subscribe request that passed every check of W16: what a price stream needs. */
export interface SubscriptionSpec {
  instrument: string;
  /** The instrument's reference data (static: its quotes are priced from it). */
  info: InstrumentInfo;
  currency: string;
  /** Rounded to 8 decimals half-even (W17). */
  quantity: Decimal;
  tenor: string;
  accountGroupUuid: string;
  tag: string;
  networkId: string | null;
  beneficiaryUuid?: string;
  senderUuid?: string;
  /** Identity of the stream for the duplicate rule (§3.5, RFS100017). */
  streamKey: string;
}

export type SubscribeVerdict =
  { ok: true; spec: SubscriptionSpec } | { ok: false; code: string; message: string; networkId: string | null };

export interface SubscribeContext {
  userUuid: string;
  market: Market;
  directory: UserDirectory;
  now: number;
  cutoffHourUtc: number;
  /** True when this connection already holds a subscription with this stream key. */
  isHeld(streamKey: string): boolean;
  /** True when the operator injected a service-side failure for this subscribe (RFS100013). */
  takeInjectedFailure(): boolean;
}

const INSTRUMENT_SHAPE = /^([^.\s]+)\.([^.\s]+)$/;
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
/** Longer quantity strings are refused before parsing (RFS100009): no size needs more. */
const MAX_QUANTITY_CHARS = 40;

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The networkId an acknowledgement carries: null unless a settlement block was sent (§2.1). */
export function ackNetworkId(request: Record<string, unknown>, instrumentBase?: string): string | null {
  const beneficiary = asRecord(request['beneficiaryDetails']);
  const sender = asRecord(request['senderDetails']);
  if (beneficiary !== undefined) {
    const supplied = optionalString(beneficiary['networkId']);
    if (supplied !== undefined) return supplied;
    const payout = optionalString(beneficiary['payoutCurrency']) ?? instrumentBase;
    return payout === undefined ? null : payoutNetwork(payout);
  }
  if (sender !== undefined) return optionalString(sender['networkId']) ?? SENDER_NETWORK;
  return null;
}

function fail(code: string, message: string, request: Record<string, unknown>, base?: string): SubscribeVerdict {
  return { ok: false, code, message, networkId: ackNetworkId(request, base) };
}

/**
 * Subscribe validation in the order of W16; the first failure wins. One file so the order can change in
 * one place if the real venue turns out to differ.
 */
export function validateSubscribe(request: Record<string, unknown>, ctx: SubscribeContext): SubscribeVerdict {
  const instrument = request['instrument'];
  if (isBlank(instrument) || typeof instrument !== 'string') {
    return fail('RFS100004', 'Instrument is required', request);
  }
  const shape = INSTRUMENT_SHAPE.exec(instrument);
  if (shape === null) return fail('RFS100005', 'Instrument must have the form BASE.QUOTE', request);
  const [, base, quote] = shape as unknown as [string, string, string];

  const currency = request['currency'];
  if (typeof currency !== 'string' || (currency !== base && currency !== quote)) {
    return fail('RFS100008', 'Currency must be one of the instrument currencies', request, base);
  }

  const rawQuantity = request['quantity'];
  if (typeof rawQuantity !== 'string' || rawQuantity.length > MAX_QUANTITY_CHARS || !PLAIN_DECIMAL.test(rawQuantity)) {
    return fail('RFS100009', 'Quantity must be a positive decimal string', request, base);
  }
  const quantity = new Decimal(rawQuantity).toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);
  if (quantity.lte(0)) return fail('RFS100009', 'Quantity must be positive', request, base);
  if (!fitsPrecision(currency, quantity)) {
    // W38: a size no balance can hold (SHIB 12345.5) is refused, never rounded (that would change the size asked)
    return fail('RFS100009', `Quantity has more decimals than ${currency} has`, request, base);
  }

  const tenor = request['tenor'];
  if (isBlank(tenor) || typeof tenor !== 'string') return fail('RFS100021', 'Tenor is required', request, base);

  const accountGroupUuid = request['accountGrpUuid'];
  if (isBlank(accountGroupUuid) || typeof accountGroupUuid !== 'string') {
    return fail('RFS600004', 'Account group is required', request, base);
  }

  const settlement = checkSettlement(request, ctx, base, quote);
  if (!settlement.ok) return settlement;

  const info = ctx.market.instrument(instrument);
  const mid = ctx.market.mid(instrument);
  if (info === undefined || mid === undefined || ctx.market.isHalted(instrument)) {
    return fail('RFS100011', 'No price for this instrument', request, base);
  }
  if (settleDateFor(tenor, info, ctx.now, ctx.cutoffHourUtc) === undefined) {
    return fail('RFS100011', 'No price for this tenor', request, base);
  }
  const baseQuantity = currency === info.base ? quantity : quantity.div(mid);
  if (baseQuantity.gt(info.maxQuantity) || baseQuantity.lt(info.minQuantity)) {
    return fail('RFS100011', 'No price at this size', request, base);
  }

  const groups = ctx.directory.accountGroupsOf(ctx.userUuid);
  if (!groups.some((g) => g.uuid === accountGroupUuid)) {
    return fail('RFS600004', 'Account group not found', request, base);
  }
  if (!ctx.directory.isPairEnabled(ctx.userUuid, instrument)) {
    return fail('PRE200035', 'Pair is disabled for this account', request, base);
  }

  const networkId = ackNetworkId(request, base);
  const streamKey = JSON.stringify([
    instrument,
    quantity.toFixed(8),
    currency,
    tenor,
    accountGroupUuid,
    settlement.beneficiaryUuid ?? null,
    settlement.senderUuid ?? null,
    networkId,
  ]);
  if (ctx.isHeld(streamKey)) return fail('RFS100017', 'Subscription already exists', request, base);
  if (ctx.takeInjectedFailure()) return fail('RFS100013', 'Unexpected failure', request, base);

  const tag = typeof request['tag'] === 'string' ? request['tag'] : '';
  return {
    ok: true,
    spec: {
      instrument,
      info,
      currency,
      quantity,
      tenor,
      accountGroupUuid,
      tag,
      networkId,
      beneficiaryUuid: settlement.beneficiaryUuid,
      senderUuid: settlement.senderUuid,
      streamKey,
    },
  };
}

type SettlementCheck =
  | { ok: true; beneficiaryUuid?: string; senderUuid?: string }
  | { ok: false; code: string; message: string; networkId: string | null };

/**
 * Settlement blocks (§4.2): not both; a beneficiary or sender must be one the user may use; payout and
 * payin currencies must be one of the pair's; payin must be crypto. All failures are
 * INVALID_SETTLEMENT_DETAILS (W16, spec-gaps W22).
 */
function checkSettlement(
  request: Record<string, unknown>,
  ctx: SubscribeContext,
  base: string,
  quote: string,
): SettlementCheck {
  const code = SandboxCode.InvalidSettlementDetails;
  const hasBeneficiary = request['beneficiaryDetails'] !== undefined;
  const hasSender = request['senderDetails'] !== undefined;
  if (hasBeneficiary && hasSender) {
    // §2.1: networkId is set whenever the request carried a settlement block; with both, the beneficiary's.
    return {
      ok: false,
      code,
      message: 'beneficiaryDetails and senderDetails cannot be combined',
      networkId: ackNetworkId(request, base),
    };
  }
  const bad = (message: string): SettlementCheck => ({
    ok: false,
    code,
    message,
    networkId: ackNetworkId(request, base),
  });
  if (hasBeneficiary) {
    const block = asRecord(request['beneficiaryDetails']);
    if (block === undefined) return bad('beneficiaryDetails must be an object');
    const payout = block['payoutCurrency'];
    if (payout !== undefined && payout !== base && payout !== quote) {
      return bad('payoutCurrency must be one of the instrument currencies');
    }
    const id = block['beneficiaryId'];
    if (id === undefined) return { ok: true };
    if (typeof id !== 'string' || ctx.directory.findCounterparty(ctx.userUuid, 'BENEFICIARY', id) === undefined) {
      return bad('Beneficiary not found');
    }
    return { ok: true, beneficiaryUuid: id };
  }
  if (hasSender) {
    const block = asRecord(request['senderDetails']);
    if (block === undefined) return bad('senderDetails must be an object');
    const payin = block['payinCurrency'];
    if (payin !== undefined) {
      if (payin !== base && payin !== quote) return bad('payinCurrency must be one of the instrument currencies');
      if (typeof payin !== 'string' || currencyInfo(payin)?.kind !== 'crypto') {
        return bad('payinCurrency must be a crypto currency');
      }
    }
    const id = block['senderId'];
    if (id === undefined) return { ok: true };
    if (typeof id !== 'string' || ctx.directory.findCounterparty(ctx.userUuid, 'SENDER', id) === undefined) {
      return bad('Sender not found');
    }
    return { ok: true, senderUuid: id };
  }
  return { ok: true };
}

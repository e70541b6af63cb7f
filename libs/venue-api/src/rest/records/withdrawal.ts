/** §2.7 withdrawal requests (fiat and crypto rows), R8 extra fiat fields, and submit/cancel results. */
import { namedRefReader, type NamedRef } from './common.js';
import { JsonNumber } from '../../money/json-number.js';
import {
  decimalText,
  identifier,
  isJsonObject,
  lenient,
  oneOf,
  record,
  ShapeError,
  text,
  type Reader,
} from './shape.js';

export type WithdrawalState = 'PENDING_APPROVAL' | 'PENDING' | 'PROCESSED' | 'FAILED' | 'CANCELLED';

export interface WithdrawalWalletRef {
  uuid: string;
  /** Omitted when the venue's participants service is unavailable. */
  address?: string;
  alias?: string;
}

export interface WithdrawalBankAccountRef {
  uuid: string;
  name?: string;
  alias?: string;
}

/** A row of either list; crypto rows have `coinAddress`/`wallet`, fiat rows `withdrawalMethod`/`bankAccount`. */
export interface WithdrawalRequest {
  uuid: string;
  /** Exact decimal string. */
  amount?: string;
  ccy?: string;
  /** FAILED exists only in the crypto vocabulary (§3.1). */
  state?: WithdrawalState;
  accountGroupUuid?: string;
  accountGroupName?: string;
  accountGroupOwner?: string;
  accountGroupOwnerUuid?: string;
  clientName?: string;
  requestor?: string;
  /** The client's own onboarded entity. */
  beneficiary?: NamedRef;
  clientComment?: string;
  dateCreated?: string;
  lastUpdated?: string;
  // crypto
  coinAddress?: string;
  wallet?: WithdrawalWalletRef;
  // fiat
  withdrawalMethod?: 'BANK_WIRE';
  bankAccount?: WithdrawalBankAccountRef;
}

/** `{success: true, uuid}` of submit and cancel. */
export interface WithdrawalAcknowledgement {
  uuid: string;
}

/**
 * A crypto submit's 2xx (§4.9: "request and response fields: not shown"): the new request's `uuid` when the answer
 * carried one we can read; without it the request is found in the crypto list by its reference (spec-gaps WD7).
 */
export interface CryptoWithdrawalAcknowledgement {
  uuid?: string;
}

/**
 * A row as the lists give it: the spec shows crypto rows with any field possibly absent and the lists carry every
 * group's and member's rows, so only `uuid` (what identifies a row) is required; every other field is read
 * liberally (`lenient`: a value of another kind, or a state added later, reads as not known).
 */
export const withdrawalRequestReader: Reader<WithdrawalRequest> = record<WithdrawalRequest>({
  uuid: text,
  amount: lenient(decimalText),
  ccy: lenient(text),
  state: lenient(oneOf('PENDING_APPROVAL', 'PENDING', 'PROCESSED', 'FAILED', 'CANCELLED')),
  accountGroupUuid: lenient(text),
  accountGroupName: lenient(text),
  accountGroupOwner: lenient(text),
  accountGroupOwnerUuid: lenient(text),
  clientName: lenient(text),
  requestor: lenient(text),
  beneficiary: lenient(namedRefReader),
  clientComment: lenient(text),
  dateCreated: lenient(text),
  lastUpdated: lenient(text),
  coinAddress: lenient(text),
  wallet: lenient(record<WithdrawalWalletRef>({ uuid: text, address: lenient(text), alias: lenient(text) })),
  withdrawalMethod: lenient(oneOf('BANK_WIRE')),
  bankAccount: lenient(record<WithdrawalBankAccountRef>({ uuid: text, name: lenient(text), alias: lenient(text) })),
});

export const withdrawalAcknowledgementReader: Reader<WithdrawalAcknowledgement> = record<WithdrawalAcknowledgement>({
  uuid: text,
});

/**
 * The 2xx of a crypto submit or cancel, whose response the spec does not show (WD7): any answer that says nothing
 * contrary is an acknowledgement — an empty body (a 204), `{"success":true}`, `{}`, a bare `"OK"` — with the `uuid`
 * when it is an identifier (or a number, as its text). Contrary: `success` other than true (`success:false` never
 * gets here: `classifyResponse` makes it a `VenueResultCodeError`), an `error` field, or a bare `false`; those are
 * a `ShapeError`, so the caller gets a protocol error (outcome unknown: the lists settle it), never a success.
 */
export const unshownAcknowledgementReader: Reader<CryptoWithdrawalAcknowledgement> = {
  optional: false,
  read(value, path) {
    if (value === false) throw new ShapeError(path, 'false: not an acknowledgement');
    if (!isJsonObject(value)) return {};
    const success = value['success'];
    if (success !== undefined && success !== null && success !== true) {
      throw new ShapeError(`${path}.success`, 'not true: not an acknowledgement');
    }
    if (value['error'] !== undefined && value['error'] !== null) {
      throw new ShapeError(`${path}.error`, 'present: not an acknowledgement');
    }
    const raw = value['uuid'] instanceof JsonNumber ? value['uuid'].text : value['uuid'];
    const uuid = lenient(identifier).read(raw, `${path}.uuid`);
    return uuid === undefined ? {} : { uuid };
  },
};

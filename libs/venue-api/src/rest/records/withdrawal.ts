/** §2.7 withdrawal requests (fiat and crypto rows), R8 extra fiat fields, and submit/cancel results. */
import { namedRefReader, type NamedRef } from './common.js';
import { decimalText, oneOf, optional, record, text, type Reader } from './shape.js';

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

export const withdrawalRequestReader: Reader<WithdrawalRequest> = record<WithdrawalRequest>({
  uuid: text,
  amount: optional(decimalText),
  ccy: optional(text),
  state: optional(oneOf('PENDING_APPROVAL', 'PENDING', 'PROCESSED', 'FAILED', 'CANCELLED')),
  accountGroupUuid: optional(text),
  accountGroupName: optional(text),
  accountGroupOwner: optional(text),
  accountGroupOwnerUuid: optional(text),
  clientName: optional(text),
  requestor: optional(text),
  beneficiary: optional(namedRefReader),
  clientComment: optional(text),
  dateCreated: optional(text),
  lastUpdated: optional(text),
  coinAddress: optional(text),
  wallet: optional(record<WithdrawalWalletRef>({ uuid: text, address: optional(text), alias: optional(text) })),
  withdrawalMethod: optional(oneOf('BANK_WIRE')),
  bankAccount: optional(record<WithdrawalBankAccountRef>({ uuid: text, name: optional(text), alias: optional(text) })),
});

export const withdrawalAcknowledgementReader: Reader<WithdrawalAcknowledgement> = record<WithdrawalAcknowledgement>({
  uuid: text,
});

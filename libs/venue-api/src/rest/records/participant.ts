/**
 * §2.5 account details (kind ORIGINATOR), beneficiaries and senders: one shape for all three.
 * ENTITY-only and INDIVIDUAL-only fields are optional here; check `type` before reading them.
 */
import { flag, isJsonObject, listOf, oneOf, optional, record, text, type Reader } from './shape.js';

export type ParticipantType = 'ENTITY' | 'INDIVIDUAL';
export type ParticipantKind = 'ORIGINATOR' | 'BENEFICIARY' | 'SENDER';

export interface ParticipantAddress {
  street?: string;
  city?: string;
  stateProvince?: string;
  postalCode?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface KycDetails {
  occupation?: string;
  sourceOfFunds?: string;
  methodOfVerification?: string;
  industryType?: string;
  entityType?: string;
  natureOfActivity?: string;
  beneficiaryOwnership?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export interface Identification {
  type?: string;
  number?: string;
  /** Used when `type` is OTHER. */
  typeOther?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface AssociatedPerson {
  uuid?: string;
  firstname?: string;
  lastname?: string;
  dateOfBirth?: string;
  countryOfOrigin?: string;
  nationality?: string;
  type?: string;
  /** AUTHORIZED_SIGNATORY, BENEFICIARY_OWNER, INTERMEDIARY_BENEFICIARY_OWNER. */
  kind?: string;
  clientShortcode?: string;
  phoneNumber?: string;
  website?: string;
  email?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface BankAccount {
  uuid: string;
  bankName?: string;
  bankBranchName?: string;
  accountNumber?: string;
  accountAlias?: string;
  accountName?: string;
  /** ISO 4217; a withdrawal's ccy must equal it. */
  currency?: string;
  iban?: string;
  swiftBic?: string;
  country?: string;
  city?: string;
  street?: string;
  postalCode?: string;
  memo?: string;
  intermediaryBankCountry?: string;
  intermediaryBankSwiftBic?: string;
  enabled?: boolean;
  verified?: boolean;
  networkIds?: string[];
  createdAt?: string;
  updatedAt?: string;
}

export interface Wallet {
  uuid: string;
  blockchain?: string;
  asset?: string;
  walletAddress?: string;
  alias?: string;
  /** SELF_HOSTED or CUSTODY. */
  type?: string;
  memo?: string;
  /** Provider name for custody wallets. */
  vasp?: string;
  executionProvider?: string;
  default?: boolean;
  enabled?: boolean;
  whitelisted?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export interface Participant {
  uuid: string;
  type: ParticipantType;
  kind: ParticipantKind;
  enabled?: boolean;
  verified?: boolean;
  vasp?: boolean;
  clientShortcode?: string;
  clientAccountGroupName?: string;
  clientAccountGroupUuid?: string;
  email?: string;
  phoneNumber?: string;
  website?: string;
  ownershipPercentage?: string;
  /** Senders' example names it `beneficiaryAddress` (§2.5); either is read into `address`. */
  address?: ParticipantAddress;
  kycDetails?: KycDetails;
  identifications?: Identification[];
  associatedPersons?: AssociatedPerson[];
  bankAccounts?: BankAccount[];
  wallets?: Wallet[];
  createdAt?: string;
  updatedAt?: string;
  // ENTITY only
  companyName?: string;
  companyName2?: string;
  dateOfFormation?: string;
  countryOfFormation?: string;
  countryOfRegistration?: string;
  // INDIVIDUAL only
  firstname?: string;
  lastname?: string;
  dateOfBirth?: string;
  countryOfOrigin?: string;
  nationality?: string;
}

const s = optional(text);
const b = optional(flag);

const addressReader = record<ParticipantAddress>({
  street: s,
  city: s,
  stateProvince: s,
  postalCode: s,
  country: s,
  createdAt: s,
  updatedAt: s,
});

const kycReader = record<KycDetails>({
  occupation: s,
  sourceOfFunds: s,
  methodOfVerification: s,
  industryType: s,
  entityType: s,
  natureOfActivity: s,
  beneficiaryOwnership: b,
  createdAt: s,
  updatedAt: s,
});

const identificationReader = record<Identification>({
  type: s,
  number: s,
  typeOther: s,
  createdAt: s,
  updatedAt: s,
});

const associatedPersonReader = record<AssociatedPerson>({
  uuid: s,
  firstname: s,
  lastname: s,
  dateOfBirth: s,
  countryOfOrigin: s,
  nationality: s,
  type: s,
  kind: s,
  clientShortcode: s,
  phoneNumber: s,
  website: s,
  email: s,
  createdAt: s,
  updatedAt: s,
});

export const bankAccountReader: Reader<BankAccount> = record<BankAccount>({
  uuid: text,
  bankName: s,
  bankBranchName: s,
  accountNumber: s,
  accountAlias: s,
  accountName: s,
  currency: s,
  iban: s,
  swiftBic: s,
  country: s,
  city: s,
  street: s,
  postalCode: s,
  memo: s,
  intermediaryBankCountry: s,
  intermediaryBankSwiftBic: s,
  enabled: b,
  verified: b,
  networkIds: optional(listOf(text)),
  createdAt: s,
  updatedAt: s,
});

export const walletReader: Reader<Wallet> = record<Wallet>({
  uuid: text,
  blockchain: s,
  asset: s,
  walletAddress: s,
  alias: s,
  type: s,
  memo: s,
  vasp: s,
  executionProvider: s,
  default: b,
  enabled: b,
  whitelisted: b,
  createdAt: s,
  updatedAt: s,
});

const participantFields = record<Participant>({
  uuid: text,
  type: oneOf('ENTITY', 'INDIVIDUAL'),
  kind: oneOf('ORIGINATOR', 'BENEFICIARY', 'SENDER'),
  enabled: b,
  verified: b,
  vasp: b,
  clientShortcode: s,
  clientAccountGroupName: s,
  clientAccountGroupUuid: s,
  email: s,
  phoneNumber: s,
  website: s,
  ownershipPercentage: s,
  address: optional(addressReader),
  kycDetails: optional(kycReader),
  identifications: optional(listOf(identificationReader)),
  associatedPersons: optional(listOf(associatedPersonReader)),
  bankAccounts: optional(listOf(bankAccountReader)),
  wallets: optional(listOf(walletReader)),
  createdAt: s,
  updatedAt: s,
  companyName: s,
  companyName2: s,
  dateOfFormation: s,
  countryOfFormation: s,
  countryOfRegistration: s,
  firstname: s,
  lastname: s,
  dateOfBirth: s,
  countryOfOrigin: s,
  nationality: s,
});

const senderAddressReader = optional(addressReader);

export const participantReader: Reader<Participant> = {
  optional: false,
  read(value, path) {
    const participant = participantFields.read(value, path);
    if (participant.address === undefined && isJsonObject(value)) {
      const alias = senderAddressReader.read(value['beneficiaryAddress'], `${path}.beneficiaryAddress`);
      if (alias !== undefined) participant.address = alias;
    }
    return participant;
  },
};

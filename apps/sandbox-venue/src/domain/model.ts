/** The back office's records. Field names follow the spec's wire names where the record is sent as is. */

export type KeyRight = 'trade' | 'withdraw' | 'get_info';

export interface ApiKeyRecord {
  apiKey: string;
  /** Base64 (spec-gaps R1); in hex mode the same text is used as a plain-text secret. */
  apiSecret: string;
  userUuid: string;
  /** §5.6: `withdraw` is the Move Funds permission. */
  rights: KeyRight[];
}

export interface VenueUser {
  uuid: string;
  login: string;
  shortcode: string;
  name: string;
  created: string;
  language: string;
  /** Instruments disabled for this user's account (PRE200035). */
  disabledPairs: string[];
}

export const ROLE_OPERATIONS = 'ROLE_OPERATIONS';

export interface AccountGroupRecord {
  uuid: string;
  name: string;
  natural: boolean;
  ownerUuid: string;
  /** The onboarded entity of this group (§4.6: one per group); undefined → account details 404. */
  originatorUuid: string | undefined;
  /** userUuid → roles held on this group (§5.6: only ROLE_OPERATIONS itself opens withdrawals). */
  roles: Record<string, string[]>;
}

export interface Address {
  street: string;
  city: string;
  stateProvince: string;
  postalCode: string;
  country: string;
  createdAt: string;
  updatedAt: string;
}

export interface BankAccount {
  uuid: string;
  bankName: string;
  bankBranchName: string;
  accountNumber: string;
  accountAlias: string;
  accountName: string;
  currency: string;
  iban: string;
  swiftBic: string;
  country: string;
  city: string;
  street: string;
  postalCode: string;
  memo: string;
  intermediaryBankCountry: string;
  intermediaryBankSwiftBic: string;
  enabled: boolean;
  verified: boolean;
  networkIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Wallet {
  uuid: string;
  blockchain: string;
  asset: string;
  walletAddress: string;
  alias: string;
  type: 'SELF_HOSTED' | 'CUSTODY';
  memo: string;
  vasp: string;
  executionProvider: string;
  default: boolean;
  enabled: boolean;
  whitelisted: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AssociatedPerson {
  uuid: string;
  firstname: string;
  lastname: string;
  dateOfBirth: string;
  countryOfOrigin: string;
  nationality: string;
  type: 'INDIVIDUAL';
  kind: 'AUTHORIZED_SIGNATORY' | 'BENEFICIARY_OWNER' | 'INTERMEDIARY_BENEFICIARY_OWNER';
  clientShortcode: string;
  phoneNumber: string;
  website: string;
  email: string;
  enabled: null;
  verified: null;
  vasp: null;
  createdAt: string;
  updatedAt: string;
}

/** §2.5: one shape for account details, beneficiaries and senders. */
export interface PartyRecord {
  uuid: string;
  type: 'ENTITY' | 'INDIVIDUAL';
  kind: 'ORIGINATOR' | 'BENEFICIARY' | 'SENDER';
  enabled: boolean;
  verified: boolean;
  vasp: boolean;
  clientShortcode: string;
  clientAccountGroupName: string;
  clientAccountGroupUuid: string;
  email: string;
  phoneNumber: string;
  website: string;
  ownershipPercentage?: string;
  /**
   * §2.5 names the sender address both `address` (field table) and `beneficiaryAddress` (example); a record
   * carries exactly one of the two (spec-gaps R33).
   */
  address?: Address;
  beneficiaryAddress?: Address;
  kycDetails: {
    occupation: string;
    sourceOfFunds: string;
    methodOfVerification: string;
    industryType: string;
    entityType: string;
    natureOfActivity: string;
    beneficiaryOwnership: boolean;
    createdAt: string;
    updatedAt: string;
  };
  identifications: { type: string; number: string; typeOther: string | null; createdAt: string; updatedAt: string }[];
  associatedPersons: AssociatedPerson[];
  bankAccounts: BankAccount[];
  wallets: Wallet[];
  createdAt: string;
  updatedAt: string;
  companyName?: string;
  companyName2?: string;
  dateOfFormation?: string;
  countryOfFormation?: string;
  countryOfRegistration?: string;
  firstname?: string;
  lastname?: string;
  dateOfBirth?: string;
  countryOfOrigin?: string;
  nationality?: string;
}

/** A counterparty (beneficiary or sender) and the groups it may be used from. */
export interface Counterparty {
  ownerUuid: string;
  record: PartyRecord;
}

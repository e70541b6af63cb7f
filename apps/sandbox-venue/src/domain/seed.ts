/**
 * Deterministic seed data: the same uuids, keys and balances on every start, so tests and demos can name
 * them. Secrets are derived from fixed labels (this is a sandbox; nothing here is a real credential).
 */
import { createHash } from 'node:crypto';
import type {
  AccountGroupRecord,
  Address,
  ApiKeyRecord,
  AssociatedPerson,
  BankAccount,
  Counterparty,
  PartyRecord,
  VenueUser,
  Wallet,
} from './model.js';
import { ROLE_OPERATIONS } from './model.js';

const T0 = '2025-01-15T09:30:00.000Z';

function secretFor(label: string): string {
  return createHash('sha512').update(`sandbox-venue/${label}`).digest('base64');
}

export const SeedIds = {
  user1: '7c1d2a4e-0000-4000-8000-000000000001',
  user2: '7c1d2a4e-0000-4000-8000-000000000002',
  /** A colleague of user 1: ROLE_OPERATIONS on user 1's Default group (§2.7 "any member of the group"). */
  colleague: '7c1d2a4e-0000-4000-8000-000000000003',
  /** user 1's Default group (Natural), ROLE_OPERATIONS held. */
  defaultGroup: '9a000000-0000-4000-8000-000000000001',
  /** user 1's sub-account group, ROLE_OPERATIONS held. */
  subGroup: '9a000000-0000-4000-8000-000000000002',
  /** user 1 owns this group but holds only composing permissions, not ROLE_OPERATIONS; no originator. */
  noRoleGroup: '9a000000-0000-4000-8000-000000000003',
  /** user 2's Default group. */
  user2DefaultGroup: '9a000000-0000-4000-8000-000000000004',
  /** the colleague's own Default group (no balances, no originator record). */
  colleagueDefaultGroup: '9a000000-0000-4000-8000-000000000005',
  originator: 'e0000000-0000-4000-8000-000000000001',
  subOriginator: 'e0000000-0000-4000-8000-000000000002',
  user2Originator: 'e0000000-0000-4000-8000-000000000003',
  bankUsdOk: 'ba000000-0000-4000-8000-000000000001',
  bankEurOk: 'ba000000-0000-4000-8000-000000000002',
  bankGbpDisabled: 'ba000000-0000-4000-8000-000000000003',
  bankUsdUnverified: 'ba000000-0000-4000-8000-000000000004',
  bankSubUsdOk: 'ba000000-0000-4000-8000-000000000005',
  bankUser2UsdOk: 'ba000000-0000-4000-8000-000000000006',
  walletBtcOk: 'a1a10000-0000-4000-8000-000000000001',
  walletEthNotWhitelisted: 'a1a10000-0000-4000-8000-000000000002',
  walletEthOk: 'a1a10000-0000-4000-8000-000000000003',
  walletBtcDisabled: 'a1a10000-0000-4000-8000-000000000004',
  walletUser2BtcOk: 'a1a10000-0000-4000-8000-000000000005',
  beneficiaryEntity: 'be000000-0000-4000-8000-000000000001',
  beneficiaryIndividual: 'be000000-0000-4000-8000-000000000002',
  beneficiaryDisabled: 'be000000-0000-4000-8000-000000000003',
  senderEntity: '5e000000-0000-4000-8000-000000000001',
  senderIndividual: '5e000000-0000-4000-8000-000000000002',
} as const;

export const SEED_KEYS: readonly ApiKeyRecord[] = [
  {
    apiKey: 'sbx-key-primary-0001',
    apiSecret: secretFor('primary'),
    userUuid: SeedIds.user1,
    rights: ['trade', 'withdraw', 'get_info'],
  },
  {
    apiKey: 'sbx-key-nomovefunds-0002',
    apiSecret: secretFor('no-move-funds'),
    userUuid: SeedIds.user1,
    rights: ['trade', 'get_info'],
  },
  {
    apiKey: 'sbx-key-user2-0003',
    apiSecret: secretFor('second-user'),
    userUuid: SeedIds.user2,
    rights: ['trade', 'withdraw', 'get_info'],
  },
  {
    apiKey: 'sbx-key-colleague-0004',
    apiSecret: secretFor('colleague'),
    userUuid: SeedIds.colleague,
    rights: ['trade', 'withdraw', 'get_info'],
  },
];

export const SEED_USERS: readonly VenueUser[] = [
  {
    uuid: SeedIds.user1,
    login: 'acme.trader@example.com',
    shortcode: 'ACME001',
    name: 'Acme Capital Ltd',
    created: T0,
    language: 'en',
    disabledPairs: [],
  },
  {
    uuid: SeedIds.user2,
    login: 'jane.doe@example.com',
    shortcode: 'JDOE002',
    name: 'Jane Doe',
    created: T0,
    language: 'en',
    disabledPairs: ['SHIB.USD'],
  },
  {
    uuid: SeedIds.colleague,
    login: 'acme.ops@example.com',
    shortcode: 'ACME003',
    name: 'Acme Operations Desk',
    created: T0,
    language: 'en',
    disabledPairs: [],
  },
];

export const SEED_GROUPS: readonly AccountGroupRecord[] = [
  {
    uuid: SeedIds.defaultGroup,
    name: 'Default',
    natural: true,
    ownerUuid: SeedIds.user1,
    originatorUuid: SeedIds.originator,
    roles: { [SeedIds.user1]: [ROLE_OPERATIONS, 'ROLE_TRADER'], [SeedIds.colleague]: [ROLE_OPERATIONS] },
  },
  {
    uuid: SeedIds.subGroup,
    name: 'Acme Sub-account',
    natural: false,
    ownerUuid: SeedIds.user1,
    originatorUuid: SeedIds.subOriginator,
    roles: { [SeedIds.user1]: [ROLE_OPERATIONS] },
  },
  {
    uuid: SeedIds.noRoleGroup,
    name: 'Acme Treasury',
    natural: false,
    ownerUuid: SeedIds.user1,
    originatorUuid: undefined,
    roles: { [SeedIds.user1]: ['ROLE_TRADER', 'PERMISSION_WITHDRAWAL_CREATE', 'PERMISSION_WITHDRAWAL_CANCEL'] },
  },
  {
    uuid: SeedIds.user2DefaultGroup,
    name: 'Default',
    natural: true,
    ownerUuid: SeedIds.user2,
    originatorUuid: SeedIds.user2Originator,
    roles: { [SeedIds.user2]: [ROLE_OPERATIONS] },
  },
  {
    uuid: SeedIds.colleagueDefaultGroup,
    name: 'Default',
    natural: true,
    ownerUuid: SeedIds.colleague,
    originatorUuid: undefined,
    roles: { [SeedIds.colleague]: [ROLE_OPERATIONS] },
  },
];

/** Settled balances at start, per group and currency (decimal strings); unlisted currencies start at 0. */
export const SEED_BALANCES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  [SeedIds.defaultGroup]: {
    USD: '1000000.00',
    EUR: '250000.00',
    GBP: '150000.00',
    JPY: '50000000',
    BTC: '12.5',
    ETH: '140',
  },
  [SeedIds.subGroup]: { USD: '50000.00', BTC: '1' },
  [SeedIds.noRoleGroup]: { USD: '25000.00' },
  [SeedIds.user2DefaultGroup]: { USD: '100000.00', BTC: '2' },
};

function address(street: string, city: string, country: string, postalCode: string): Address {
  return { street, city, stateProvince: '', postalCode, country, createdAt: T0, updatedAt: T0 };
}

function bank(
  uuid: string,
  currency: string,
  alias: string,
  enabled: boolean,
  verified: boolean,
  accountNumber: string,
): BankAccount {
  return {
    uuid,
    bankName: 'Sandbox Bank plc',
    bankBranchName: 'City',
    accountNumber,
    accountAlias: alias,
    accountName: 'Acme Capital Ltd',
    currency,
    iban: `GB29SBOX6016131${accountNumber}`,
    swiftBic: 'SBOXGB2L',
    country: 'GB',
    city: 'London',
    street: '1 Bank Street',
    postalCode: 'E14 5AB',
    memo: '',
    intermediaryBankCountry: '',
    intermediaryBankSwiftBic: '',
    enabled,
    verified,
    networkIds: currency === 'EUR' ? ['SEPA', 'SWIFT'] : currency === 'GBP' ? ['FPS', 'SWIFT'] : ['SWIFT'],
    createdAt: T0,
    updatedAt: T0,
  };
}

function wallet(
  uuid: string,
  asset: string,
  alias: string,
  walletAddress: string,
  enabled: boolean,
  whitelisted: boolean,
): Wallet {
  return {
    uuid,
    blockchain: asset === 'BTC' ? 'BITCOIN' : 'ETHEREUM',
    asset,
    walletAddress,
    alias,
    type: 'SELF_HOSTED',
    memo: '',
    vasp: '',
    executionProvider: '',
    default: enabled && whitelisted,
    enabled,
    whitelisted,
    createdAt: T0,
    updatedAt: T0,
  };
}

function person(uuid: string, firstname: string, lastname: string, kind: AssociatedPerson['kind']): AssociatedPerson {
  return {
    uuid,
    firstname,
    lastname,
    dateOfBirth: '1980-04-12',
    countryOfOrigin: 'GB',
    nationality: 'GB',
    type: 'INDIVIDUAL',
    kind,
    clientShortcode: 'ACME001',
    phoneNumber: '+442070000001',
    website: '',
    email: `${firstname.toLowerCase()}@acme.example.com`,
    enabled: null,
    verified: null,
    vasp: null,
    createdAt: T0,
    updatedAt: T0,
  };
}

const kyc = {
  occupation: '',
  sourceOfFunds: 'TRADING_REVENUE',
  methodOfVerification: 'DOCUMENTS',
  industryType: 'FINANCIAL_SERVICES',
  entityType: 'PRIVATE_COMPANY',
  natureOfActivity: 'PROPRIETARY_TRADING',
  beneficiaryOwnership: true,
  createdAt: T0,
  updatedAt: T0,
};

function entity(
  uuid: string,
  kind: PartyRecord['kind'],
  companyName: string,
  group: { uuid: string; name: string },
  extra: Partial<PartyRecord>,
): PartyRecord {
  return {
    uuid,
    type: 'ENTITY',
    kind,
    enabled: true,
    verified: true,
    vasp: false,
    clientShortcode: 'ACME001',
    clientAccountGroupName: group.name,
    clientAccountGroupUuid: group.uuid,
    email: 'ops@acme.example.com',
    phoneNumber: '+442070000000',
    website: 'https://acme.example.com',
    address: address('10 Finsbury Square', 'London', 'GB', 'EC2A 1AF'),
    kycDetails: kyc,
    identifications: [
      { type: 'LEI', number: '549300SANDBOX0000001', typeOther: null, createdAt: T0, updatedAt: T0 },
      { type: 'BUSINESS_REGISTRATION', number: '09876543', typeOther: null, createdAt: T0, updatedAt: T0 },
    ],
    associatedPersons: [],
    bankAccounts: [],
    wallets: [],
    createdAt: T0,
    updatedAt: T0,
    companyName,
    companyName2: '',
    dateOfFormation: '2015-06-01',
    countryOfFormation: 'GB',
    countryOfRegistration: 'GB',
    ...extra,
  };
}

function individual(
  uuid: string,
  kind: PartyRecord['kind'],
  firstname: string,
  lastname: string,
  group: { uuid: string; name: string },
  extra: Partial<PartyRecord>,
): PartyRecord {
  return {
    uuid,
    type: 'INDIVIDUAL',
    kind,
    enabled: true,
    verified: true,
    vasp: false,
    clientShortcode: 'JDOE002',
    clientAccountGroupName: group.name,
    clientAccountGroupUuid: group.uuid,
    email: `${firstname.toLowerCase()}@example.com`,
    phoneNumber: '+447700900000',
    website: '',
    address: address('5 High Street', 'Manchester', 'GB', 'M1 1AA'),
    kycDetails: { ...kyc, occupation: 'ENGINEER', entityType: '', industryType: '', natureOfActivity: '' },
    identifications: [{ type: 'PASSPORT', number: '123456789', typeOther: null, createdAt: T0, updatedAt: T0 }],
    associatedPersons: [],
    bankAccounts: [],
    wallets: [],
    createdAt: T0,
    updatedAt: T0,
    firstname,
    lastname,
    dateOfBirth: '1990-02-20',
    countryOfOrigin: 'GB',
    nationality: 'GB',
    ...extra,
  };
}

const defaultGroupRef = { uuid: SeedIds.defaultGroup, name: 'Default' };
const subGroupRef = { uuid: SeedIds.subGroup, name: 'Acme Sub-account' };
const user2GroupRef = { uuid: SeedIds.user2DefaultGroup, name: 'Default' };

export const SEED_ORIGINATORS: readonly PartyRecord[] = [
  entity(SeedIds.originator, 'ORIGINATOR', 'Acme Capital Ltd', defaultGroupRef, {
    associatedPersons: [
      person('a9000000-0000-4000-8000-000000000001', 'Alice', 'Smith', 'AUTHORIZED_SIGNATORY'),
      person('a9000000-0000-4000-8000-000000000002', 'Bob', 'Jones', 'BENEFICIARY_OWNER'),
    ],
    bankAccounts: [
      bank(SeedIds.bankUsdOk, 'USD', 'USD main', true, true, '00000001'),
      bank(SeedIds.bankEurOk, 'EUR', 'EUR main', true, true, '00000002'),
      bank(SeedIds.bankGbpDisabled, 'GBP', 'GBP old', false, true, '00000003'),
      bank(SeedIds.bankUsdUnverified, 'USD', 'USD pending KYC', true, false, '00000004'),
    ],
    wallets: [
      wallet(SeedIds.walletBtcOk, 'BTC', 'BTC cold', 'bc1qsandbox0000000000000000000000000001', true, true),
      wallet(
        SeedIds.walletEthNotWhitelisted,
        'ETH',
        'ETH new',
        '0x00000000000000000000000000000000sandbox2',
        true,
        false,
      ),
      wallet(SeedIds.walletEthOk, 'ETH', 'ETH main', '0x00000000000000000000000000000000sandbox3', true, true),
      wallet(SeedIds.walletBtcDisabled, 'BTC', 'BTC retired', 'bc1qsandbox0000000000000000000000000004', false, true),
    ],
  }),
  entity(SeedIds.subOriginator, 'ORIGINATOR', 'Acme Capital Ltd', subGroupRef, {
    companyName2: 'Sub-account',
    bankAccounts: [bank(SeedIds.bankSubUsdOk, 'USD', 'Sub USD', true, true, '00000005')],
  }),
  individual(SeedIds.user2Originator, 'ORIGINATOR', 'Jane', 'Doe', user2GroupRef, {
    bankAccounts: [bank(SeedIds.bankUser2UsdOk, 'USD', 'Jane USD', true, true, '00000006')],
    wallets: [
      wallet(SeedIds.walletUser2BtcOk, 'BTC', 'Jane BTC', 'bc1qsandbox0000000000000000000000000005', true, true),
    ],
  }),
];

export const SEED_BENEFICIARIES: readonly Counterparty[] = [
  {
    ownerUuid: SeedIds.user1,
    record: entity(SeedIds.beneficiaryEntity, 'BENEFICIARY', 'Globex Trading GmbH', defaultGroupRef, {
      clientShortcode: 'ACME001',
      address: address('Unter den Linden 1', 'Berlin', 'DE', '10117'),
      countryOfFormation: 'DE',
      countryOfRegistration: 'DE',
      bankAccounts: [bank('ba000000-0000-4000-8000-0000000000b1', 'EUR', 'Globex EUR', true, true, '00000101')],
      wallets: [
        wallet(
          'a1a10000-0000-4000-8000-0000000000b1',
          'BTC',
          'Globex BTC',
          'bc1qglobex000000000000000000000000000001',
          true,
          true,
        ),
      ],
    }),
  },
  {
    ownerUuid: SeedIds.user1,
    record: individual(SeedIds.beneficiaryIndividual, 'BENEFICIARY', 'Carol', 'White', defaultGroupRef, {
      clientShortcode: 'ACME001',
      ownershipPercentage: '25',
      bankAccounts: [bank('ba000000-0000-4000-8000-0000000000b2', 'GBP', 'Carol GBP', true, true, '00000102')],
    }),
  },
  {
    ownerUuid: SeedIds.user1,
    record: entity(SeedIds.beneficiaryDisabled, 'BENEFICIARY', 'Initech Ltd (closed)', defaultGroupRef, {
      clientShortcode: 'ACME001',
      enabled: false,
      verified: true,
    }),
  },
];

/** The sender example's spelling (§2.5): the address under `beneficiaryAddress`, no `address`. */
function asExampleSender(record: PartyRecord): PartyRecord {
  const { address: beneficiaryAddress, ...rest } = record;
  return { ...rest, beneficiaryAddress };
}

export const SEED_SENDERS: readonly Counterparty[] = [
  {
    ownerUuid: SeedIds.user1,
    // §2.5 (spec-gaps R33): this sender follows the field table (`address`), the next the example.
    record: entity(SeedIds.senderEntity, 'SENDER', 'Umbrella Payments SA', defaultGroupRef, {
      address: address('Rue du Rhône 10', 'Geneva', 'CH', '1204'),
      countryOfFormation: 'CH',
      countryOfRegistration: 'CH',
    }),
  },
  {
    ownerUuid: SeedIds.user1,
    record: asExampleSender(
      individual(SeedIds.senderIndividual, 'SENDER', 'Dave', 'Brown', defaultGroupRef, {
        clientShortcode: 'ACME001',
      }),
    ),
  },
];

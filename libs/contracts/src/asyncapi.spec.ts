import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import { getMetadataStorage } from 'class-validator';
import {
  AccountSyncSubjects,
  BalanceQuery,
  ExecutionSubjects,
  KillSwitchRequest,
  OrderCommand,
  declaredFields,
  parseContract,
  parsePlaceOrder,
  type PlaceOrderRequest,
  riskSubjects,
  RiskLimitsChange,
  RiskScopeQuery,
  StateQuery,
  PairQuery,
  TradeQuery,
  TradingStateChange,
  TransactionGetRequest,
  TransactionListQuery,
  TransactionSubjects,
  WithdrawalCancelRequest,
  WithdrawalGetRequest,
  WithdrawalListRequest,
  WithdrawalSubjects,
  WithdrawalSubmitRequest,
  type BalanceState,
  type OrderAccepted,
  type OrderEvent,
  type OrderView,
  type TradingStateEntry,
  type UnsetTradingStateEntry,
  type TransactionStateChanged,
  type WithdrawalStateChanged,
  type WithdrawalView,
  StreamRelease,
  StreamRequest,
  Subjects,
  type ConnectorStatus,
  type OrderContradiction,
  type OrderOutcome,
  type OrderRecall,
  type PriceMessage,
  type StreamGranted,
} from './index.js';

/**
 * docs/asyncapi.yaml, the contract of every app, against libs/contracts — so neither can drift:
 *  - the AsyncAPI parser (offline: the document has internal references only) finds no error or warning;
 *  - every message example matches its payload and headers schemas (JSON Schema, checked with ajv: the
 *    parser checks examples of AsyncAPI 2 documents only);
 *  - the channels are exactly the subjects of the contract: each subject a `Subjects` getter or method
 *    computes has a channel at that address, and each channel is such a subject (or a reply / NATS channel);
 *  - each schema's property and required lists match the contract class (validation metadata) or interface
 *    (typed samples below: the type checker fails when a contract gains or loses a field);
 *  - each example of a request the apps validate passes the apps' own validation (`parseContract`).
 * Patterns, bounds, `additionalProperties` and the quoteId-or-quote-request rule are compared value by value in
 * asyncapi-rules.spec.ts (also run by `npm run check:asyncapi`).
 *
 * An app adding subjects (execution, account-sync) adds: its subjects object to SUBJECT_CATALOGUES, its
 * classes to VALIDATED, its interfaces to INTERFACES, its channels and schemas to docs/asyncapi.yaml.
 */
const DOCUMENT = readFileSync(join(process.cwd(), 'docs/asyncapi.yaml'), 'utf8');
const PLACEHOLDER_ACCOUNT = '{account}';

const SUBJECTS = new Subjects('gw.v1', PLACEHOLDER_ACCOUNT);
/**
 * Every object whose getters and one-argument methods (or, for a plain object, string fields and
 * one-argument functions) compute the contract's subjects, with the prefix of its channel ids
 * (`execPlace` = ExecutionSubjects `place`).
 */
const SUBJECT_CATALOGUES: [string, object][] = [
  ['', SUBJECTS],
  ['exec', new ExecutionSubjects(SUBJECTS)],
  ['execRisk', riskSubjects(SUBJECTS)],
  ['acct', new AccountSyncSubjects(SUBJECTS)],
  ['transaction', new TransactionSubjects('gw.v1', PLACEHOLDER_ACCOUNT)],
  ['withdrawal', new WithdrawalSubjects('gw.v1', PLACEHOLDER_ACCOUNT)],
];
/** Subjects computed from several fields (or encoded): the address written with the document's parameter names. */
const COMPOSED_SUBJECTS: Record<string, (catalogue: object) => string | undefined> = {
  orderEvent: (c) => (c instanceof ExecutionSubjects ? c.orderEvent('{strategyId}', '{orderId}') : undefined),
  stateChanged: (c) =>
    c instanceof AccountSyncSubjects
      ? c
          .stateChanged('RESOURCE' as 'balance', 'CHANGE' as 'changed', 'KEY')
          .replace('RESOURCE.CHANGE.KEY', '{resource}.{change}.{key}')
      : undefined,
  drift: (c) =>
    c instanceof AccountSyncSubjects
      ? c.drift('GROUP', 'CCY').replace('GROUP.CCY', '{accountGroupUuid}.{ccy}')
      : undefined,
  changed: (c) =>
    c instanceof TransactionSubjects
      ? c.changed('UUID').replace(/UUID$/, '{uuid}')
      : c instanceof WithdrawalSubjects
        ? c.changed('{requestId}')
        : undefined,
  price: (c) =>
    c instanceof Subjects
      ? c
          .price({
            accountGroup: '{accountGroup}',
            instrument: '{base}.{quote}',
            tenor: '{tenor}',
            currency: '{currency}',
            quantity: '1',
          })
          .replace(/\.1$/, '.{size}')
      : undefined,
};
/** Catalogue members that are not subjects of their own (wildcards of other channels, fields). */
const NOT_CHANNELS = new Set([
  'prefix',
  'account',
  'allPrices',
  'allOrderOutcomes',
  'allOrderContradictions',
  'scoped',
  'subjects',
  'scope',
  // wildcards of the channels above (subscribe / stream filters), and typed topics of a channel
  'strategyEvents',
  'allOrderEvents',
  'orderEventTopic',
  'allAudit',
  'allStateChanges',
  'allDrifts',
  'allChanged',
]);
/** Channels served by the NATS server itself (JetStream API), part of the contract for late joiners. */
const NATS_CHANNELS: Record<string, string> = { lastValue: '$JS.API.DIRECT.GET.{stream}' };

/** Contract classes validated by the apps (class-validator): schema fields = decorated fields. */
const VALIDATED = [
  ['StreamRequest', StreamRequest],
  ['StreamRelease', StreamRelease],
  ['OrderCommand', OrderCommand],
  ['TradingStateChange', TradingStateChange],
  ['KillSwitchRequest', KillSwitchRequest],
  ['RiskLimitsChange', RiskLimitsChange],
  ['RiskScopeQuery', RiskScopeQuery],
  ['BalanceQuery', BalanceQuery],
  ['TradeQuery', TradeQuery],
  ['TransactionListQuery', TransactionListQuery],
  ['StateQuery', StateQuery],
  ['PairQuery', PairQuery],
  ['TransactionGetRequest', TransactionGetRequest],
  ['WithdrawalSubmitRequest', WithdrawalSubmitRequest],
  ['WithdrawalGetRequest', WithdrawalGetRequest],
  ['WithdrawalCancelRequest', WithdrawalCancelRequest],
  ['WithdrawalListRequest', WithdrawalListRequest],
] as const;

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** A list of exactly the required keys of T (compile-time exhaustive). */
function requiredKeys<T>() {
  return <const A extends readonly RequiredKeys<T>[]>(
    keys: A & (Exclude<RequiredKeys<T>, A[number]> extends never ? unknown : 'missing required keys'),
  ): string[] => [...keys] as string[];
}

const priceSample: Required<PriceMessage> = {
  v: 1,
  status: 'live',
  accountGroup: '',
  instrument: '',
  tenor: '',
  currency: '',
  quantity: '',
  quoteId: '',
  venueTimestamp: 0,
  quoteExpiresAt: 0,
  bid: { price: '', quantity: '', quoteAmount: '' },
  offer: { price: '', quantity: '', quoteAmount: '' },
  settleDate: '',
  code: '',
  message: '',
};
const outcomeSample: Required<OrderOutcome> = {
  v: 1,
  clientRequestId: '',
  status: 'PENDING',
  transactionId: '',
  quoteId: '',
  side: 'BUY',
  code: '',
  message: '',
  instrument: '',
  price: '',
  quantity: '',
  quoteAmount: '',
  currency: '',
  settleDate: '',
  tradeRef: '',
  venueTimestamp: 0,
  source: 'reply',
};
const contradictionSample: Required<OrderContradiction> = {
  v: 1,
  clientRequestId: '',
  kept: 'FAILED',
  status: 'SUCCESS',
  source: 'reply',
  at: 0,
};
const statusSample: Required<ConnectorStatus> = {
  v: 1,
  account: '',
  sessionState: 'open',
  since: 0,
  notOpenSince: 0,
  everOpen: true,
  lastFailure: { code: 'token-refused', reason: '', at: 0 },
  reconnects: 0,
  subscriptions: { live: 0, stale: 0, pending: 0 },
  lastPriceAgeMs: 0,
  orderQueuePaceMs: 0,
  startedAt: 0,
  publishedAt: 0,
};
const grantedSample: Required<StreamGranted> = { ok: true, subject: '', leaseExpiresAt: 0 };
const orderViewSample: Required<OrderView> = {
  v: 1,
  orderId: '',
  clientRequestId: '',
  idempotencyKey: '',
  strategyId: '',
  accountGroup: '',
  side: 'BUY',
  instrument: '',
  quoteId: '',
  quantity: '',
  currency: '',
  tenor: '',
  worstPrice: '',
  sendBy: 0,
  state: 'SUCCESS',
  status: 'SUCCESS',
  final: true,
  code: '',
  message: '',
  fill: { price: '', baseCurrency: '', quoteCurrency: '', baseAmount: '', quoteAmount: '', source: 'outcome' },
  evidence: 'reply',
  undone: { state: 'CANCELLED', tradeUuid: '', at: 0 },
  correction: {
    verdict: 'EXECUTED_AFTER_FAILED',
    source: 'reply',
    fill: { price: '', baseCurrency: '', quoteCurrency: '', baseAmount: '', quoteAmount: '', source: 'trade-list' },
    tradeUuid: '',
    at: 0,
  },
  acceptedAt: 0,
  updatedAt: 0,
  quoteExpiresAt: 0,
};
const orderEventSample: Required<OrderEvent> = { v: 1, seq: 1, at: 0, order: orderViewSample };
const acceptedSample: Required<OrderAccepted> = {
  ok: true,
  orderId: '',
  clientRequestId: '',
  duplicate: false,
  order: orderViewSample,
};
const tradingEntrySample: Required<TradingStateEntry> = {
  scope: 'global',
  id: '',
  state: 'ACTIVE',
  by: '',
  reason: '',
  at: '',
  revision: 0,
};
const unsetEntrySample: Required<UnsetTradingStateEntry> = { scope: 'global', id: '', state: 'ACTIVE', revision: 0 };
const balanceSample: Required<BalanceState> = {
  accountGroupUuid: '',
  accountGroupName: '',
  natural: true,
  ccy: '',
  balance: '',
  available: '',
  brokerageAvailable: '',
  unsettledSell: '',
  unsettledBuy: '',
};
const transactionSample: Required<TransactionStateChanged> = {
  v: 1,
  uuid: '',
  state: 'PENDING',
  previousState: null,
  outcome: 'pending',
  failed: false,
  source: 'webhook',
  corrected: true,
  storedAt: 0,
  leg: { uuid: '', transactionClass: '', transactionType: '', transactionState: 'PENDING', ccy: '', amount: '' },
};
const withdrawalSample: Required<WithdrawalView> = {
  requestId: '',
  idempotencyKey: '',
  kind: 'fiat',
  state: 'PENDING',
  accountGroupUuid: '',
  ccy: '',
  amount: '',
  bankAccountUuid: '',
  walletUuid: '',
  clientComment: '',
  venueUuid: '',
  rejection: { code: '', message: '' },
  cancelRequested: false,
  createdAt: 0,
  updatedAt: 0,
  venueLastUpdated: '',
  duplicates: [],
  carriedOutAfterRejection: { venueUuid: '', venueState: 'PENDING_APPROVAL', foundAt: 0 },
  restored: { at: 0 },
};
const placeOrderSample: Required<PlaceOrderRequest> = {
  idempotencyKey: '',
  strategyId: '',
  accountGroup: '',
  side: 'BUY',
  quoteId: '',
  instrument: '',
  quantity: '',
  currency: '',
  tenor: '',
  sendBy: 0,
  worstPrice: '',
};
const withdrawalChangedSample: Required<WithdrawalStateChanged> = {
  v: 1,
  previousState: null,
  withdrawal: withdrawalSample,
};

/** Contract interfaces (published, not validated on receipt): schema fields = the interface's fields. */
const recallSample: Required<OrderRecall> = { v: 1, clientRequestIds: [], reason: '' };
const INTERFACES = [
  ['OrderRecall', recallSample, requiredKeys<OrderRecall>()(['v', 'clientRequestIds', 'reason'])],
  [
    'PlaceOrderRequest',
    placeOrderSample,
    requiredKeys<PlaceOrderRequest>()(['idempotencyKey', 'strategyId', 'accountGroup', 'side']),
  ],
  [
    'PriceMessage',
    priceSample,
    requiredKeys<PriceMessage>()(['v', 'status', 'accountGroup', 'instrument', 'tenor', 'currency', 'quantity']),
  ],
  [
    'OrderOutcome',
    outcomeSample,
    requiredKeys<OrderOutcome>()(['v', 'clientRequestId', 'status', 'code', 'message', 'source']),
  ],
  [
    'OrderContradiction',
    contradictionSample,
    requiredKeys<OrderContradiction>()(['v', 'clientRequestId', 'kept', 'status', 'source', 'at']),
  ],
  [
    'ConnectorStatus',
    statusSample,
    requiredKeys<ConnectorStatus>()([
      'v',
      'account',
      'sessionState',
      'since',
      'reconnects',
      'subscriptions',
      'publishedAt',
    ]),
  ],
  ['StreamGranted', grantedSample, requiredKeys<StreamGranted>()(['ok', 'subject', 'leaseExpiresAt'])],
  [
    'OrderView',
    orderViewSample,
    requiredKeys<OrderView>()([
      'v',
      'orderId',
      'clientRequestId',
      'idempotencyKey',
      'strategyId',
      'accountGroup',
      'side',
      'quoteId',
      'state',
      'final',
      'acceptedAt',
      'updatedAt',
      'quoteExpiresAt',
    ]),
  ],
  ['OrderEvent', orderEventSample, requiredKeys<OrderEvent>()(['v', 'seq', 'at', 'order'])],
  [
    'OrderAccepted',
    acceptedSample,
    requiredKeys<OrderAccepted>()(['ok', 'orderId', 'clientRequestId', 'duplicate', 'order']),
  ],
  [
    'TradingStateEntry',
    tradingEntrySample,
    requiredKeys<TradingStateEntry>()(['scope', 'state', 'by', 'reason', 'at', 'revision']),
  ],
  ['UnsetTradingStateEntry', unsetEntrySample, requiredKeys<UnsetTradingStateEntry>()(['scope', 'state', 'revision'])],
  [
    'BalanceState',
    balanceSample,
    requiredKeys<BalanceState>()(['accountGroupUuid', 'ccy', 'balance', 'available', 'brokerageAvailable']),
  ],
  [
    'TransactionStateChanged',
    transactionSample,
    requiredKeys<TransactionStateChanged>()([
      'v',
      'uuid',
      'state',
      'previousState',
      'outcome',
      'failed',
      'source',
      'storedAt',
      'leg',
    ]),
  ],
  [
    'WithdrawalView',
    withdrawalSample,
    requiredKeys<WithdrawalView>()([
      'requestId',
      'idempotencyKey',
      'kind',
      'state',
      'accountGroupUuid',
      'ccy',
      'amount',
      'createdAt',
      'updatedAt',
    ]),
  ],
  [
    'WithdrawalStateChanged',
    withdrawalChangedSample,
    requiredKeys<WithdrawalStateChanged>()(['v', 'previousState', 'withdrawal']),
  ],
] as const;

interface JsonSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}
interface Resolved {
  channels: Record<string, { address: string | null; messages?: Record<string, unknown> }>;
  components: {
    schemas: Record<string, JsonSchema>;
    messages: Record<
      string,
      { payload?: object; headers?: object; examples?: { name?: string; payload?: unknown; headers?: unknown }[] }
    >;
  };
}

let resolved: Resolved;
let diagnostics: { severity: number; code: string | number; message: string; path: (string | number)[] }[];

async function parse(text: string) {
  const result = await new Parser().parse(text);
  return {
    document: result.document,
    problems: result.diagnostics
      .filter((d) => d.severity <= 1) // error 0, warning 1; information and hints are not failures
      .map((d) => ({ severity: d.severity, code: d.code, message: d.message, path: d.path })),
  };
}

beforeAll(async () => {
  const { document, problems } = await parse(DOCUMENT);
  diagnostics = problems;
  if (document === undefined) throw new Error(`docs/asyncapi.yaml does not parse: ${JSON.stringify(problems)}`);
  resolved = document.json() as unknown as Resolved;
});

describe('docs/asyncapi.yaml: a valid AsyncAPI 3 document', () => {
  it('the parser finds no error and no warning', () => {
    expect(diagnostics).toEqual([]);
  });

  it('is self-contained (every reference internal), so the check needs no network', () => {
    const refs = [...DOCUMENT.matchAll(/\$ref:\s*'?([^'\s}]+)/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => !ref.startsWith('#/'))).toEqual([]);
  });

  it('every example matches its message’s payload and headers schemas', () => {
    expect(exampleProblems(resolved)).toEqual([]);
  });

  it('an example that breaks its schema is found (the check has teeth)', async () => {
    const broken = DOCUMENT.replace('side: BUY }', 'side: HOLD }');
    expect(broken).not.toBe(DOCUMENT);
    const { document } = await parse(broken);
    expect(exampleProblems(document?.json() as unknown as Resolved)).toEqual([
      'OrderCommand example "buy on a quote" payload: /side must be equal to one of the allowed values',
    ]);
  });
});

describe('docs/asyncapi.yaml matches libs/contracts', () => {
  it('has a channel for every subject of the contract, and no channel that is not one', () => {
    const expected = new Map<string, string>(Object.entries(NATS_CHANNELS));
    for (const [idPrefix, catalogue] of SUBJECT_CATALOGUES) {
      for (const [name, subject] of Object.entries(subjectsOf(catalogue))) {
        expected.set(idPrefix === '' ? name : `${idPrefix}${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`, subject);
      }
    }
    const addressed = Object.entries(resolved.channels).filter(([, channel]) => channel.address !== null);
    expect(Object.fromEntries(addressed.map(([id, channel]) => [id, channel.address]))).toEqual(
      Object.fromEntries(expected),
    );
  });

  it('every reply channel (address null) belongs to a request channel of the same name', () => {
    const replies = Object.entries(resolved.channels).filter(([, c]) => c.address === null);
    for (const [id] of replies) expect(Object.keys(resolved.channels)).toContain(id.replace(/Reply$/, ''));
  });

  it.each(VALIDATED)('schema %s has the validated class fields, optional ones not required', (name, Class) => {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(Class, '', true, false);
    const fields = declaredFields(Class);
    const optional = new Set(metadata.filter((m) => m.type === 'conditionalValidation').map((m) => m.propertyName));
    const schema = schemaOf(name);
    expect(new Set(Object.keys(schema.properties ?? {}))).toEqual(fields);
    expect(new Set(schema.required)).toEqual(new Set([...fields].filter((f) => !optional.has(f))));
  });

  it.each(INTERFACES)('schema %s has the interface fields and required list', (name, sample, required) => {
    const schema = schemaOf(name);
    expect(new Set(Object.keys(schema.properties ?? {}))).toEqual(new Set(Object.keys(sample)));
    expect(new Set(schema.required)).toEqual(new Set(required));
  });

  it('every example of PlaceOrderRequest passes the execution app’s own parser', () => {
    const examples = resolved.components.messages['PlaceOrderRequest']?.examples ?? [];
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(parsePlaceOrder(JSON.stringify(example.payload))).toMatchObject({ ok: true });
    }
  });

  it.each(VALIDATED)('every example of %s passes the apps’ own validation', (name, Class) => {
    const examples = resolved.components.messages[name]?.examples ?? [];
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(parseContract(Class as new () => object, JSON.stringify(example.payload))).toMatchObject({ ok: true });
    }
  });
});

/** `{ name: subject }` of every getter and one-argument method of a subjects catalogue. */
function subjectsOf(catalogue: object): Record<string, string> {
  const found: Record<string, string> = {};
  if (Object.getPrototypeOf(catalogue) === Object.prototype) {
    // a plain object (riskSubjects): its string fields and one-argument functions
    for (const [name, value] of Object.entries(catalogue)) {
      if (NOT_CHANNELS.has(name)) continue;
      if (typeof value === 'string') found[name] = value;
      else if (typeof value === 'function' && (value as () => unknown).length === 1) {
        const param = /^\s*\(?\s*(\w+)/.exec(String(value))?.[1] ?? 'param';
        found[name] = (value as (arg: string) => string)(`{${param}}`);
      }
    }
    return found;
  }
  const proto = Object.getPrototypeOf(catalogue) as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor' || NOT_CHANNELS.has(name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    const composed = COMPOSED_SUBJECTS[name]?.(catalogue);
    if (composed !== undefined) found[name] = composed;
    else if (descriptor?.get !== undefined) found[name] = descriptor.get.call(catalogue) as string;
    else if (typeof descriptor?.value === 'function' && (descriptor.value as () => unknown).length === 1) {
      const param = /^\s*\(?\s*(\w+)/.exec(String(descriptor.value).replace(/^[\w$]+\s*/, ''))?.[1] ?? 'param';
      found[name] = (descriptor.value as (arg: string) => string).call(catalogue, `{${param}}`);
    }
  }
  return found;
}

/** Every example checked against its message's payload and headers schemas (refs already resolved). */
function exampleProblems(document: Resolved): string[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const problems: string[] = [];
  for (const [name, message] of Object.entries(document.components.messages)) {
    for (const example of message.examples ?? []) {
      for (const part of ['payload', 'headers'] as const) {
        const schema = message[part];
        if (schema === undefined || example[part] === undefined) continue;
        const validate = ajv.compile(schema);
        if (validate(example[part])) continue;
        for (const error of validate.errors ?? []) {
          problems.push(
            `${name} example "${example.name ?? '?'}" ${part}: ${error.instancePath} ${error.message ?? ''}`,
          );
        }
      }
    }
  }
  return problems;
}

function schemaOf(name: string): JsonSchema {
  const schema = resolved.components.schemas[name];
  if (schema === undefined) throw new Error(`schema ${name} not in docs/asyncapi.yaml`);
  return schema;
}

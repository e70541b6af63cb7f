import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { Ajv, type ValidateFunction } from 'ajv';
import {
  BalanceQuery,
  KillSwitchRequest,
  OrderCommand,
  PairQuery,
  parseContract,
  parsePlaceOrder,
  RiskLimitsChange,
  RiskScopeQuery,
  StateQuery,
  StreamRelease,
  StreamRequest,
  TradeQuery,
  TradingStateChange,
  TransactionGetRequest,
  TransactionListQuery,
  WithdrawalCancelRequest,
  WithdrawalGetRequest,
  WithdrawalListRequest,
  WithdrawalSubmitRequest,
} from './index.js';

/**
 * docs/asyncapi.yaml's request schemas against the apps' own validation, value by value. Teams that do not use
 * TypeScript generate validators from the document: a schema looser than the app (`00.5` as a size, `a.b` as an
 * account group, `-1` as a quantity) lets their requests be refused at run time; a stricter one refuses good requests.
 *
 * Each message's first example is a valid request; each sample below replaces one field of it (a dotted path
 * reaches into an object), and the schema (compiled with ajv) and the app (`parseContract` / `parsePlaceOrder`)
 * must give the same answer. A field the app does not declare must be refused by both or by neither
 * (`additionalProperties: false` exactly where the app refuses unknown fields).
 *
 * A rule JSON Schema cannot say (a currency one of the instrument's two, the length of an amount written plainly)
 * is listed in CONTRACT_ONLY with its reason: there the schema accepts and the app refuses, and the schema's
 * description tells it.
 */
const GROUP_UUID = '9a000000-0000-4000-8000-000000000001';
const DOCUMENT = readFileSync(join(process.cwd(), 'docs/asyncapi.yaml'), 'utf8');

type Accepts = (payload: string) => boolean;
const contract =
  (Class: new () => object): Accepts =>
  (payload) =>
    parseContract(Class, payload).ok;
const placeOrder: Accepts = (payload) => parsePlaceOrder(payload).ok;

/** Every request the apps validate: its message in the document, and the app's own check. */
const REQUESTS: [string, Accepts][] = [
  ['StreamRequest', contract(StreamRequest)],
  ['StreamRelease', contract(StreamRelease)],
  ['OrderCommand', contract(OrderCommand)],
  ['PlaceOrderRequest', placeOrder],
  ['TradingStateChange', contract(TradingStateChange)],
  ['KillSwitchRequest', contract(KillSwitchRequest)],
  ['RiskLimitsChange', contract(RiskLimitsChange)],
  ['RiskScopeQuery', contract(RiskScopeQuery)],
  ['BalanceQuery', contract(BalanceQuery)],
  ['TradeQuery', contract(TradeQuery)],
  ['TransactionListQuery', contract(TransactionListQuery)],
  ['StateQuery', contract(StateQuery)],
  ['PairQuery', contract(PairQuery)],
  ['TransactionGetRequest', contract(TransactionGetRequest)],
  ['WithdrawalSubmitRequest', contract(WithdrawalSubmitRequest)],
  ['WithdrawalGetRequest', contract(WithdrawalGetRequest)],
  ['WithdrawalCancelRequest', contract(WithdrawalCancelRequest)],
  ['WithdrawalListRequest', contract(WithdrawalListRequest)],
];

const BAD_DECIMALS = ['-1', '1e-2', '1E+3', '.5', '5.', '00.5', '0', '0.0', '+1', ' 1', '1,5', '', 1];
const SIZES = [
  '0.5',
  '1',
  '0.010',
  '10.12345678',
  '0.00000001',
  '1'.repeat(20),
  '1'.repeat(20) + '.5',
  ...BAD_DECIMALS,
];
const OVERSIZED = ['1'.repeat(21), '0.123456789', '01', '0.00000000'];
const SUBJECT_TOKENS = ['g1', 'a.b', '*', '>', 'a b', 'a\tb', '', 'é'];
/** Text read back by people: no control, format or line-separator character, not only spaces. */
const VISIBLE = [
  'mm-1',
  ' k ',
  ' ',
  '',
  'a\u0000',
  'a\u001b[31m',
  'a\u007f',
  'a\u0085',
  'a\u200b',
  'a\u202e',
  'a\u2028',
  'a\ud800', // a lone surrogate: not a character, printed escaped
  '\udc00b',
  'a\ud83d\ude00', // a pair: one character (😀), visible
];
/** Control, format and line-separator characters: never in text a person reads back. */
const CONTROLS = [
  'a\u0000b',
  'a\u0007',
  'a\tb',
  'a\nb',
  'a\rb',
  'a\u001b[2K',
  'a\u0085',
  'a\u200b',
  'a\u202e',
  'a\u2028',
  'a\ud800b',
  'a\udfff',
];
/** An audit record's reason: visible text (it may hold spaces), not only spaces. */
const AUDIT_REASONS = ['why', 'venue incident — 42%', ' why ', ' ', '', ...CONTROLS];
const PRICES = [
  '64000',
  '070000',
  '7E+4',
  '1e3',
  '2.45e-5',
  '0.5',
  '64000.50',
  '1'.repeat(64),
  '1'.repeat(65),
  '1e100',
];
const BAD_PRICES = ['-5', '0', '0.0', '0e5', '.5', '5.', '+5', '1,5', '', 64000, 'NaN', 'Infinity'];
const AMOUNTS = [
  '10000',
  '001000',
  '1E+3',
  '0',
  '0.0',
  '0.5',
  '1'.repeat(64),
  '1'.repeat(65),
  '1e100',
  '-1',
  '.5',
  '5.',
  1000,
];

/** Per message: field (dotted path) → values tried in place of the example's. */
const SAMPLES: Record<string, Record<string, unknown[]>> = {
  StreamRequest: {
    quantity: [...SIZES, ...OVERSIZED],
    accountGroup: [...SUBJECT_TOKENS, 'x'.repeat(64), 'x'.repeat(65)],
    tenor: [...SUBJECT_TOKENS, 'x'.repeat(16), 'x'.repeat(17)],
    requester: [...VISIBLE, 'x'.repeat(128), 'x'.repeat(129)],
    instrument: ['BTC.USD', 'BTCUSD', 'BTC.USD.X', 'B.U', 'x'.repeat(16) + '.' + 'y'.repeat(17), 'BTC.US D'],
    currency: ['BTC', '', 'x'.repeat(16), 'x'.repeat(17)],
    leaseSeconds: [5, 4, 3600, 3601, 30.5, '30', null],
  },
  StreamRelease: {
    requester: [...VISIBLE, 'x'.repeat(128), 'x'.repeat(129)],
    subject: ['gw.v1.price.g.BTC.USD.T.BTC.0_5', '', 'x'.repeat(255), 'x'.repeat(256)],
  },
  OrderCommand: {
    clientRequestId: [
      'ord-1',
      'a/b',
      'a b',
      'a.b',
      'a*',
      'a>',
      'a\u0000',
      'a\u0085',
      'é',
      '',
      'x'.repeat(64),
      'x'.repeat(65),
    ],
    quoteId: ['q', '', 'q\u0000', 'q\u202e', 'é', 'q'.repeat(512), 'q'.repeat(513)],
    instrument: ['BTC.USD', '', 'a\u0000', 'a\u200b', 'x'.repeat(32), 'x'.repeat(33)],
    sendBy: [0, 1, -1, 1.5, '1'],
    side: ['BUY', 'SELL', 'HOLD'],
  },
  PlaceOrderRequest: {
    // the first example asks for a quote: quantity, currency, tenor, instrument
    quantity: [...SIZES, ...OVERSIZED],
    worstPrice: [...PRICES, ...BAD_PRICES],
    idempotencyKey: ['k', ' k ', ' ', '', 'k\u0000', 'k\u0085', 'k\u202e', 'x'.repeat(128), 'x'.repeat(129)],
    strategyId: ['mm-1', 'a_B-9', 'a b', 'a.b', '', 'x'.repeat(64), 'x'.repeat(65)],
    accountGroup: [...SUBJECT_TOKENS, 'x'.repeat(64), 'x'.repeat(65)],
    currency: ['BTC', 'USD', 'ETH', 'B-C', '', 'x'.repeat(17)],
    tenor: [...SUBJECT_TOKENS, 'x'.repeat(16), 'x'.repeat(17)],
    instrument: ['BTC.USD', 'BTC.EUR', 'BTCUSD', 'BTC.USD.X', 'BTC.' + 'x'.repeat(17)],
    quoteId: ['q'],
    sendBy: [1, 0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, '1'],
    side: ['BUY', 'SELL', 'HOLD'],
  },
  RiskLimitsChange: {
    'limits.maxNotionalPerOrder.USD': AMOUNTS,
    'limits.maxNotionalPerOrder': [{}, { usd: '1' }, { 'U SD': '1' }, '1000'],
    'limits.maxOpenExposure.BTC': AMOUNTS,
    'limits.maxOrdersPerSecond': [0, 1_000_000, 1_000_001, -1, 1.5, '5'],
    'limits.maxQuoteAgeMs': [0, 86_400_000, 86_400_001, -1],
    'limits.allowedInstruments': [[], ['BTC.USD'], ['BTCUSD'], 'BTC.USD'],
    'limits.maxOrderz': [3],
    limits: [null, {}, 'none'],
    by: [...VISIBLE, 'x'.repeat(128), 'x'.repeat(129)],
    reason: [...AUDIT_REASONS, 'x'.repeat(1024), 'x'.repeat(1025)],
  },
  TradingStateChange: {
    by: [...VISIBLE, 'x'.repeat(128), 'x'.repeat(129)],
    reason: [...AUDIT_REASONS, 'x'.repeat(1024), 'x'.repeat(1025)],
  },
  KillSwitchRequest: {
    by: [...VISIBLE, 'x'.repeat(128), 'x'.repeat(129)],
    reason: [...AUDIT_REASONS, 'x'.repeat(1024), 'x'.repeat(1025)],
  },
  WithdrawalSubmitRequest: {
    ccy: ['USD', 'BTC', 'usdc', 'USDC.E', 'x'.repeat(16), 'x'.repeat(17), '', ' ', 'U SD', ...CONTROLS],
    clientComment: ['', 'rent — März', 'a b', 'x'.repeat(996), 'x'.repeat(997), ...CONTROLS],
  },
};

/** Whole requests (beyond one field): PlaceOrderRequest is either a quoteId or a whole quote request. */
const PLACE_BASE = { idempotencyKey: 'k', strategyId: 's', accountGroup: 'g', side: 'BUY' };
const QUOTE_REQUEST = { instrument: 'BTC.USD', quantity: '1', currency: 'BTC', tenor: 'T' };
const WHOLE: [string, string, object][] = [
  ['PlaceOrderRequest', 'a quoteId', { ...PLACE_BASE, quoteId: 'q' }],
  ['PlaceOrderRequest', 'a quoteId and its instrument', { ...PLACE_BASE, quoteId: 'q', instrument: 'BTC.USD' }],
  ['PlaceOrderRequest', 'a quote request', { ...PLACE_BASE, ...QUOTE_REQUEST }],
  ['PlaceOrderRequest', 'both', { ...PLACE_BASE, quoteId: 'q', ...QUOTE_REQUEST }],
  ['PlaceOrderRequest', 'a quoteId and a tenor', { ...PLACE_BASE, quoteId: 'q', tenor: 'T' }],
  ['PlaceOrderRequest', 'a quoteId and a quantity', { ...PLACE_BASE, quoteId: 'q', quantity: '1' }],
  ['PlaceOrderRequest', 'neither', PLACE_BASE],
  ['PlaceOrderRequest', 'a quote request without tenor', { ...PLACE_BASE, ...QUOTE_REQUEST, tenor: undefined }],
  ['PlaceOrderRequest', 'an instrument alone', { ...PLACE_BASE, instrument: 'BTC.USD' }],
];

/**
 * Samples the schema accepts and the app refuses, because JSON Schema cannot say the rule: each schema's
 * description says it instead.
 */
const CONTRACT_ONLY: Record<string, string> = {
  'PlaceOrderRequest currency "ETH"': 'currency must be one of the instrument’s two currencies',
  'PlaceOrderRequest worstPrice "1e100"': 'at most 64 characters written plainly (1e100 is 101)',
  'RiskLimitsChange limits.maxNotionalPerOrder.USD "1e100"': 'at most 64 characters written plainly',
  'RiskLimitsChange limits.maxOpenExposure.BTC "1e100"': 'at most 64 characters written plainly',
};

let components: { messages: Record<string, { payload?: object; examples?: { payload?: unknown }[] }> };
let messages: (typeof components)['messages'];
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  const { document, diagnostics } = await new Parser().parse(DOCUMENT);
  if (document === undefined) throw new Error(`docs/asyncapi.yaml does not parse: ${JSON.stringify(diagnostics)}`);
  components = (document.json() as unknown as { components: typeof components }).components;
  messages = components.messages;
});

/** The schema's answer and the app's, for one payload of a message. */
function answers(message: string, accepts: Accepts, payload: unknown): { schema: boolean; app: boolean } {
  let validate = validators.get(message);
  if (validate === undefined) {
    const schema = messages[message]?.payload;
    if (schema === undefined) throw new Error(`message ${message} has no payload schema`);
    validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    validators.set(message, validate);
  }
  return { schema: validate(payload), app: accepts(JSON.stringify(payload)) };
}

function exampleOf(message: string): Record<string, unknown> {
  const payload = messages[message]?.examples?.[0]?.payload;
  if (payload === undefined || payload === null || typeof payload !== 'object') {
    throw new Error(`message ${message} has no example to vary`);
  }
  return payload as Record<string, unknown>;
}

/** A deep copy of `payload` with the value at a dotted path replaced. */
function withValue(payload: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(payload);
  const keys = path.trim().split('.');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
  return copy;
}

/** A sample as a test name shows it: long runs counted, anything outside printable ASCII as `\\uXXXX`. */
const show = (value: unknown) =>
  (JSON.stringify(value) ?? 'undefined')
    .replace(/(.)\1{9,}/g, (run, c: string) => `${c}×${run.length}`)
    .replace(/[^\x20-\x7e×]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('docs/asyncapi.yaml request schemas accept exactly what the apps accept', () => {
  it.each(Object.keys(SAMPLES))('%s: schema and app agree on every sample value', (message) => {
    const accepts = REQUESTS.find(([name]) => name === message)?.[1] as Accepts;
    const disagreements: string[] = [];
    let tried = 0;
    for (const [field, values] of Object.entries(SAMPLES[message] ?? {})) {
      for (const value of values) {
        const { schema, app } = answers(message, accepts, withValue(exampleOf(message), field, value));
        tried += 1;
        const key = `${message} ${field.trim()} ${show(value)}`;
        const expected = CONTRACT_ONLY[key] !== undefined ? { schema: true, app: false } : { schema: app, app };
        if (schema !== expected.schema || app !== expected.app) {
          disagreements.push(`${key}: schema ${schema ? 'accepts' : 'refuses'}, app ${app ? 'accepts' : 'refuses'}`);
        }
      }
    }
    expect(tried).toBeGreaterThan(10);
    expect(disagreements).toEqual([]);
  });

  it.each(WHOLE)('%s, %s: schema and app agree', (message, _what, payload) => {
    const accepts = REQUESTS.find(([name]) => name === message)?.[1] as Accepts;
    const { schema, app } = answers(message, accepts, JSON.parse(JSON.stringify(payload)));
    expect({ schema }).toEqual({ schema: app });
  });

  it.each(REQUESTS)('%s: a field the app does not know is refused by both or by neither', (message, accepts) => {
    const { schema, app } = answers(message, accepts, { ...exampleOf(message), unknownField: 1 });
    expect({ schema }).toEqual({ schema: app });
  });

  it('the samples the schema cannot refuse are still refused by the app (the list stays true)', () => {
    for (const key of Object.keys(CONTRACT_ONLY)) {
      const [message = '', field = '', ...rest] = key.split(' ');
      const value: unknown = JSON.parse(rest.join(' '));
      expect(SAMPLES[message]?.[field]).toContainEqual(value);
    }
  });
});

/**
 * Valid requests beyond the messages' examples, holding the text fields no example shows, so that every string a
 * request carries is tried with a lone surrogate below.
 */
const MORE_REQUESTS: Record<string, object[]> = {
  OrderCommand: [{ clientRequestId: 'c1', quoteId: 'q1', side: 'BUY', instrument: 'BTC.USD' }],
  BalanceQuery: [{ ccy: 'USD' }],
  TradeQuery: [{ accountGroupUuid: 'g1', clientRef: 'c1', tradeRef: 't1' }],
  TransactionListQuery: [{ accountGroupUuid: 'g1', ccy: 'USD', tradeId: 't1' }],
  WithdrawalSubmitRequest: [
    { idempotencyKey: 'k', kind: 'crypto', accountGroupUuid: GROUP_UUID, ccy: 'BTC', amount: '1', walletUuid: 'w1' },
    { idempotencyKey: 'k', kind: 'fiat', accountGroupUuid: GROUP_UUID, ccy: 'USD', amount: '1', clientComment: 'rent' },
  ],
  WithdrawalGetRequest: [{ requestId: 'a1b2c3' }],
  WithdrawalCancelRequest: [{ idempotencyKey: 'k' }, { requestId: 'a1b2c3', accountGroupUuid: GROUP_UUID }],
};

/** `text` with its last UTF-16 unit replaced by a lone surrogate (half a character: `\ud800`). */
const halved = (text: string) => `${text.slice(0, -1)}\ud800`;

/** Every string in `node` (values, and the keys of objects below the top level) as [path, kind]. */
function stringPlaces(node: unknown, path: string[] = []): [string[], 'value' | 'key'][] {
  if (typeof node === 'string') return [[path, 'value']];
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, child]) => [
    ...(path.length > 0 && !Array.isArray(node) ? [[[...path, key], 'key'] as [string[], 'key']] : []),
    ...stringPlaces(child, [...path, key]),
  ]);
}

/** A deep copy of `payload` with the string at `path` (its value, or its key) given a lone surrogate. */
function withHalf(payload: object, path: string[], kind: 'value' | 'key'): object {
  const copy = structuredClone(payload) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1) as string;
  if (kind === 'value') node[last] = halved(node[last] as string);
  else {
    node[halved(last)] = node[last];
    delete node[last];
  }
  return copy;
}

describe('a lone UTF-16 surrogate is refused in every string a request carries, by the app and by the schema', () => {
  // A lone surrogate cannot be written as UTF-8: sent on, it arrives as U+FFFD, so the venue, a KV key, a subject
  // token or a Nats-Msg-Id would see another string than the one validated (ids stop matching).
  it.each(REQUESTS)('%s', (message, accepts) => {
    const payloads: object[] = (messages[message]?.examples ?? []).map((e) => e.payload as object);
    const properties = (messages[message]?.payload as { properties?: Record<string, object> }).properties;
    payloads.push(...(MORE_REQUESTS[message] ?? []));
    const tried = new Set<string>();
    const wrong: string[] = [];
    for (const payload of payloads) {
      expect(answers(message, accepts, payload)).toEqual({ schema: true, app: true });
      for (const [path, kind] of stringPlaces(payload)) {
        const { schema, app } = answers(message, accepts, withHalf(payload, path, kind));
        tried.add(path[0] as string);
        if (schema || app) wrong.push(`${path.join('.')} (${kind}): ${schema ? 'schema' : ''} ${app ? 'app' : ''}`);
      }
    }
    // a field of free text, not one of a list of words (`side`, `kind`): each must have been tried
    const textFields = Object.entries(properties ?? {})
      .filter(([, schema]) => JSON.stringify(schema).includes('"string"') && !('enum' in schema))
      .map(([field]) => field);
    const untried = textFields.filter((field) => !tried.has(field));
    expect({ wrong, untried }).toEqual({ wrong: [], untried: [] });
  });
});

describe('docs/asyncapi.yaml says what it means', () => {
  it('no schema key is empty: an unquoted comma in a flow mapping (`{ description: a, b }`) makes a bogus key', () => {
    const empty: string[] = [];
    const seen = new Set<object>();
    const walk = (node: unknown, path: string): void => {
      if (node === null) empty.push(path);
      else if (typeof node === 'object' && !seen.has(node)) {
        seen.add(node);
        for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
      }
    };
    walk(components, '#/components');
    expect(empty).toEqual([]);
  });
});

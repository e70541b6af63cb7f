import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import {
  OrderCommand,
  StreamRelease,
  StreamRequest,
  Subjects,
  type ConnectorStatus,
  type OrderOutcome,
  type PriceMessage,
  type StreamGranted,
} from '#contracts';

/**
 * docs/asyncapi.yaml against libs/contracts: channel addresses are computed with `Subjects`; schema
 * property and required lists match the contract classes (validation metadata) and interfaces (typed
 * samples below: the type checker fails when a contract gains or loses a field).
 */
const yaml = readFileSync(join(process.cwd(), 'docs/asyncapi.yaml'), 'utf8');

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
const statusSample: Required<ConnectorStatus> = {
  v: 1,
  account: '',
  sessionState: 'open',
  since: 0,
  reconnects: 0,
  subscriptions: { live: 0, stale: 0, pending: 0 },
  lastPriceAgeMs: 0,
  publishedAt: 0,
};
const grantedSample: Required<StreamGranted> = { ok: true, subject: '', leaseExpiresAt: 0 };

describe('docs/asyncapi.yaml matches libs/contracts', () => {
  it('lists every subject of the contract at the address Subjects computes', () => {
    const s = new Subjects('gw.v1', '{account}');
    const price = s
      .price({
        accountGroup: '{accountGroup}',
        instrument: '{base}.{quote}',
        tenor: '{tenor}',
        currency: '{currency}',
        quantity: '1',
      })
      .replace(/\.1$/, '.{size}');
    expect(channelAddresses()).toEqual({
      price,
      streamSubscribe: s.streamSubscribe,
      streamSubscribeReply: 'null',
      streamRelease: s.streamRelease,
      streamReleaseReply: 'null',
      accountGroups: s.accountGroups,
      accountGroupsReply: 'null',
      orderCommand: s.orderCommand,
      orderOutcome: s.orderOutcome('{clientRequestId}'),
      connectorStatus: s.connectorStatus,
    });
  });

  it.each([
    ['StreamRequest', StreamRequest],
    ['StreamRelease', StreamRelease],
    ['OrderCommand', OrderCommand],
  ] as const)('schema %s has the validated class fields, optional ones not required', (name, Class) => {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(Class, '', true, false);
    const fields = new Set(metadata.map((m) => m.propertyName));
    const optional = new Set(metadata.filter((m) => m.type === 'conditionalValidation').map((m) => m.propertyName));
    const schema = schemaOf(name);
    expect(new Set(schema.properties)).toEqual(fields);
    expect(new Set(schema.required)).toEqual(new Set([...fields].filter((f) => !optional.has(f))));
  });

  it.each([
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
  ] as const)('schema %s has the interface fields and required list', (name, sample, required) => {
    const schema = schemaOf(name);
    expect(new Set(schema.properties)).toEqual(new Set(Object.keys(sample)));
    expect(new Set(schema.required)).toEqual(new Set(required));
  });
});

/** `channels.<name>.address`, read from the file's fixed two-space layout. */
function channelAddresses(): Record<string, string> {
  const addresses: Record<string, string> = {};
  let section = '';
  let channel = '';
  for (const line of yaml.split('\n')) {
    const top = /^(\w+):/.exec(line);
    if (top?.[1] !== undefined) section = top[1];
    if (section !== 'channels') continue;
    const name = /^ {2}(\w+):$/.exec(line);
    if (name?.[1] !== undefined) channel = name[1];
    const address = /^ {4}address: (.+)$/.exec(line);
    if (address?.[1] !== undefined) addresses[channel] = address[1];
  }
  return addresses;
}

/** `components.schemas.<name>`: its top-level property names and its `required: [...]` list. */
function schemaOf(name: string): { properties: string[]; required: string[] } {
  const lines = yaml.split('\n');
  const start = lines.findIndex((l, i) => l === `    ${name}:` && lines.slice(0, i).includes('  schemas:'));
  if (start < 0) throw new Error(`schema ${name} not in docs/asyncapi.yaml`);
  const properties: string[] = [];
  let required: string[] = [];
  let inProperties = false;
  for (const line of lines.slice(start + 1)) {
    if (/^ {0,4}\S/.test(line)) break; // next schema or section
    const req = /^ {6}required: \[(.*)\]$/.exec(line);
    if (req?.[1] !== undefined) required = req[1].split(',').map((k) => k.trim());
    if (/^ {6}\S/.test(line)) inProperties = line.trim() === 'properties:';
    const prop = /^ {8}([\w]+):/.exec(line);
    if (inProperties && prop?.[1] !== undefined) properties.push(prop[1]);
  }
  return { properties, required };
}

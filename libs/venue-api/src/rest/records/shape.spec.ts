import { describe, expect, it } from '@jest/globals';
import { parseJsonLossless } from '../../money/lossless-json.js';
import {
  decimalText,
  integer,
  lenient,
  listOf,
  nullable,
  nullableLenient,
  oneOf,
  openText,
  optional,
  record,
  ShapeError,
  text,
  type Open,
} from './shape.js';
import { parseTransactionNotification, readTransactionNotification } from './transaction.js';
import { transactionJson } from '../test-support/venue-bodies.js';

const read = <T>(reader: { read(value: unknown, path: string): T }, json: string): T =>
  reader.read(parseJsonLossless(json), 'body');

describe('record readers', () => {
  it('keeps a decimal JSON number as its exact text, and writes an exponent in plain notation', () => {
    expect(read(decimalText, '100.10')).toBe('100.10');
    expect(read(decimalText, '0.1000000000000000000000000001')).toBe('0.1000000000000000000000000001');
    expect(read(decimalText, '1.5E-7')).toBe('0.00000015');
    expect(read(decimalText, '"42.00"')).toBe('42.00');
    // negative zero is zero (outside tester: a webhook amount -0 was published as "-0")
    expect(read(decimalText, '-0')).toBe('0');
    expect(read(decimalText, '"-0.00"')).toBe('0.00');
    expect(read(decimalText, '-0E3')).toBe('0');
    expect(() => read(decimalText, '"12,5"')).toThrow(ShapeError);
    expect(() => read(decimalText, 'true')).toThrow('body: expected a decimal, got boolean');
  });

  it('reads whole numbers from a number or a digit string, refusing fractions and unsafe values', () => {
    expect(read(integer, '3')).toBe(3);
    expect(read(integer, '"3"')).toBe(3);
    expect(() => read(integer, '3.5')).toThrow(ShapeError);
    expect(() => read(integer, '9007199254740993')).toThrow('safe range');
  });

  it('names the path of a missing or wrong field; ignores unknown fields; optional tolerates null', () => {
    const reader = record<{ id: string; side: 'BUY' | 'SELL'; note?: string; tags: string[]; at: string | null }>({
      id: text,
      side: oneOf('BUY', 'SELL'),
      note: optional(text),
      tags: listOf(text),
      at: nullable(text),
    });
    expect(read(reader, '{"id":"a","side":"BUY","note":null,"tags":[],"extra":1}')).toEqual({
      id: 'a',
      side: 'BUY',
      tags: [],
      at: null,
    });
    expect(() => read(reader, '{"id":"a","side":"HOLD","tags":[]}')).toThrow('body.side: unexpected value "HOLD"');
    expect(() => read(reader, '{"side":"BUY","tags":[]}')).toThrow('body.id: expected a string, got undefined');
    expect(() => read(reader, '{"id":"a","side":"BUY","tags":[1]}')).toThrow('body.tags[0]');
  });

  it('parses a webhook notification losslessly', () => {
    const record = parseTransactionNotification(transactionJson);
    expect(record).toMatchObject({ uuid: 'tx-1', amount: '12345678901234567890.123456789', balanceAfter: '100.10' });
    expect(() => parseTransactionNotification('{"uuid":"x"}')).toThrow(ShapeError);
  });

  it('refuses a notification whose uuid is empty or over 1024 bytes (it becomes a NATS subject)', () => {
    const withUuid = (uuid: string) => transactionJson.replace('"uuid":"tx-1"', `"uuid":${JSON.stringify(uuid)}`);
    expect(parseTransactionNotification(withUuid('u'.repeat(1_024))).uuid).toHaveLength(1_024);
    expect(() => parseTransactionNotification(withUuid('u'.repeat(1_025)))).toThrow(
      'notification.uuid: expected at most 1024 bytes, got 1025',
    );
    // bytes, not characters: 342 three-byte characters are 1026 bytes
    expect(() => parseTransactionNotification(withUuid('€'.repeat(342)))).toThrow('got 1026');
    expect(() => parseTransactionNotification(withUuid(''))).toThrow(ShapeError);
    // a NATS header (its message id) cannot carry CR or LF: refused, not answered 503 for ever (outside tester)
    for (const uuid of ['tx-nl\nx', 'tx-cr\rx', 'tx\u0000'])
      expect(() => parseTransactionNotification(withUuid(uuid))).toThrow(
        'notification.uuid: expected no control characters',
      );
    // a lone UTF-16 surrogate (`\ud800` unpaired in the JSON) cannot be written as UTF-8: as a message id or key
    // it would be U+FFFD, the same as another uuid's; a pair (one character) is taken
    for (const uuid of ['tx\ud800', '\udc00tx'])
      expect(() => parseTransactionNotification(withUuid(uuid))).toThrow(
        'notification.uuid: expected whole characters (no lone UTF-16 surrogate)',
      );
    expect(parseTransactionNotification(withUuid('tx\ud83d\ude00')).uuid).toBe('tx\ud83d\ude00');
  });

  it('bounds text and written-out decimals: a 50,000-character ccy, 1e400 (outside tester)', () => {
    expect(() => read(text, JSON.stringify('x'.repeat(4_097)))).toThrow('body: expected at most 4096 characters');
    expect(read(text, JSON.stringify('x'.repeat(4_096)))).toHaveLength(4_096);
    expect(() => read(decimalText, '1e400')).toThrow(ShapeError);
    expect(() => read(decimalText, '1e250')).toThrow('longer than 200 characters written out');
    expect(read(decimalText, '1e150')).toHaveLength(151);
  });
});

describe('liberal field readers', () => {
  it('openText keeps any string (a value outside the spec list as sent); lenient reads a wrong kind as not known', () => {
    const reader = record<{ state?: Open<'A' | 'B'> }>({ state: lenient(openText<'A' | 'B'>()) });
    expect(read(reader, '{"state":"A"}')).toEqual({ state: 'A' });
    expect(read(reader, '{"state":"LATER"}')).toEqual({ state: 'LATER' });
    expect(read(reader, '{"state":7}')).toEqual({});
  });

  it('nullableLenient reads absent, null and a wrong kind as null', () => {
    const reader = record<{ title: string | null }>({ title: nullableLenient(text) });
    expect(read(reader, '{"title":"t"}')).toEqual({ title: 't' });
    expect(read(reader, '{}')).toEqual({ title: null });
    expect(read(reader, '{"title":{"en":"t"}}')).toEqual({ title: null });
  });
});

describe('readTransactionNotification', () => {
  const withField = (field: string, value: string) =>
    transactionJson.replace(new RegExp(`"${field}":("[^"]*"|[^,}]*)`), `"${field}":${value}`);

  it('reads a record, keeping it when an optional field is unusual', () => {
    const reading = readTransactionNotification(withField('received', '"soon"'));
    expect(reading).toMatchObject({ ok: true, record: { uuid: 'tx-1', amount: '12345678901234567890.123456789' } });
    expect(reading.ok && reading.record.received).toBeUndefined();
  });

  it('names the uuid of a record the ledger cannot hold (a state outside §3.3, no amount)', () => {
    expect(readTransactionNotification(withField('transactionState', '"ON_HOLD"'))).toEqual({
      ok: false,
      uuid: 'tx-1',
      problem: 'notification.transactionState: unexpected value "ON_HOLD"',
    });
    expect(readTransactionNotification(withField('amount', 'null'))).toMatchObject({ ok: false, uuid: 'tx-1' });
  });

  it('names the uuid of a leg whose ccy is no currency code (empty, NUL, RTL override, 4,096 characters; tester t2 F5)', () => {
    const problem =
      'notification.ccy: expected a currency code: 1-16 characters without white space, control or format characters';
    for (const ccy of ['', 'U\u0000SD', '\u202eDSU', 'Q'.repeat(4_096), 'U SD', 'a\ud800', 'X'.repeat(17)]) {
      expect(readTransactionNotification(withField('ccy', JSON.stringify(ccy)))).toEqual({
        ok: false,
        uuid: 'tx-1',
        problem,
      });
    }
    expect(readTransactionNotification(withField('ccy', '7'))).toMatchObject({ ok: false, uuid: 'tx-1' });
    for (const ccy of ['USD', 'BTC', 'usdc', 'USDC.E', 'X'.repeat(16)]) {
      expect(readTransactionNotification(withField('ccy', JSON.stringify(ccy)))).toMatchObject({
        ok: true,
        record: { ccy },
      });
    }
  });

  it('gives no uuid for a body that is not JSON, not an object, or has no usable uuid', () => {
    expect(readTransactionNotification('{"uuid": ')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^Invalid JSON/),
    });
    expect(readTransactionNotification('[1]')).toEqual({ ok: false, problem: expect.any(String) });
    expect(readTransactionNotification(withField('uuid', '42'))).toEqual({
      ok: false,
      problem: 'notification.uuid: expected a string, got number',
    });
    expect(readTransactionNotification(withField('uuid', JSON.stringify('u'.repeat(2_000))))).not.toHaveProperty(
      'uuid',
    );
  });
});

import { describe, expect, it } from '@jest/globals';
import { parseJsonLossless } from '../../money/lossless-json.js';
import { decimalText, integer, listOf, nullable, oneOf, optional, record, ShapeError, text } from './shape.js';
import { parseTransactionNotification } from './transaction.js';
import { transactionJson } from '../test-support/venue-bodies.js';

const read = <T>(reader: { read(value: unknown, path: string): T }, json: string): T =>
  reader.read(parseJsonLossless(json), 'body');

describe('record readers', () => {
  it('keeps a decimal JSON number as its exact text, and writes an exponent in plain notation', () => {
    expect(read(decimalText, '100.10')).toBe('100.10');
    expect(read(decimalText, '0.1000000000000000000000000001')).toBe('0.1000000000000000000000000001');
    expect(read(decimalText, '1.5E-7')).toBe('0.00000015');
    expect(read(decimalText, '"42.00"')).toBe('42.00');
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

  it('refuses a notification whose uuid is empty or longer than 128 characters (it becomes a NATS subject)', () => {
    const withUuid = (uuid: string) => transactionJson.replace('"uuid":"tx-1"', `"uuid":${JSON.stringify(uuid)}`);
    expect(parseTransactionNotification(withUuid('u'.repeat(128))).uuid).toHaveLength(128);
    expect(() => parseTransactionNotification(withUuid('u'.repeat(4_000)))).toThrow('notification.uuid');
    expect(() => parseTransactionNotification(withUuid(''))).toThrow(ShapeError);
  });
});

import { describe, it, expect } from '@jest/globals';
import { InvalidClientMessageError, encodeClientMessage } from './codec.js';
import type { ClientMessage, SubscribeRequest } from './messages.js';

const subscribe: SubscribeRequest = {
  messageType: 'subscribe',
  instrument: 'BTC.USD',
  quantity: '1.5',
  currency: 'BTC',
  accountGrpUuid: 'g-1',
  tenor: 'T',
};

function encodeSubscribe(overrides: Record<string, unknown>): string {
  return encodeClientMessage({ ...subscribe, ...overrides } as SubscribeRequest);
}

function refusal(fn: () => unknown): InvalidClientMessageError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidClientMessageError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('encodeClientMessage: subscribe', () => {
  it('writes the fields in a fixed order and nothing else', () => {
    const extra = { ...subscribe, tag: 'a', secretStuff: 'x' } as SubscribeRequest;
    expect(encodeClientMessage(extra)).toBe(
      '{"messageType":"subscribe","instrument":"BTC.USD","quantity":"1.5","currency":"BTC","accountGrpUuid":"g-1","tenor":"T","tag":"a"}',
    );
  });

  it('writes settlement blocks with their known fields only', () => {
    const json = encodeSubscribe({
      beneficiaryDetails: { beneficiaryId: 'b-1', payoutCurrency: 'USD', other: 1 },
    });
    expect(JSON.parse(json)).toMatchObject({ beneficiaryDetails: { beneficiaryId: 'b-1', payoutCurrency: 'USD' } });
    expect(json).not.toContain('other');
    expect(JSON.parse(encodeSubscribe({ senderDetails: { senderId: 's-1', networkId: 'SVC_SENDER' } }))).toMatchObject({
      senderDetails: { senderId: 's-1', networkId: 'SVC_SENDER' },
    });
  });

  it('accepts up to 8 decimals and writes scientific notation plainly', () => {
    expect(JSON.parse(encodeSubscribe({ quantity: '0.00000001' })).quantity).toBe('0.00000001');
    expect(JSON.parse(encodeSubscribe({ quantity: '1.5e-7' })).quantity).toBe('0.00000015');
    expect(JSON.parse(encodeSubscribe({ quantity: '1E+3' })).quantity).toBe('1000');
    expect(JSON.parse(encodeSubscribe({ quantity: '100.50000000' })).quantity).toBe('100.50000000');
  });

  it.each([
    [{ quantity: '0.000000001' }, 'quantity', 'at most 8 allowed'],
    [{ quantity: '1.000000000' }, 'quantity', 'at most 8 allowed'],
    [{ quantity: '1.5e-9' }, 'quantity', 'at most 8 allowed'],
    [{ quantity: '0' }, 'quantity', 'must be positive'],
    [{ quantity: '-1' }, 'quantity', 'must be positive'],
    [{ quantity: '1,5' }, 'quantity', 'not a decimal number'],
    [{ quantity: 1.5 }, 'quantity', 'must be a decimal string'],
    [{ instrument: '' }, 'instrument', 'non-blank'],
    [{ instrument: 'BTCUSD' }, 'instrument', 'BASE.QUOTE'],
    [{ instrument: 'BTC.USD.X' }, 'instrument', 'BASE.QUOTE'],
    [{ instrument: 'BTC .USD' }, 'instrument', 'BASE.QUOTE'],
    [{ currency: ' ' }, 'currency', 'non-blank'],
    [{ accountGrpUuid: '' }, 'accountGrpUuid', 'non-blank'],
    [{ tenor: '' }, 'tenor', 'non-blank'],
    [{ tag: 5 }, 'tag', 'must be a string'],
    [{ beneficiaryDetails: {}, senderDetails: {} }, 'senderDetails', 'cannot be combined'],
    [{ beneficiaryDetails: 'b' }, 'beneficiaryDetails', 'must be an object'],
    [{ beneficiaryDetails: { beneficiaryId: 3 } }, 'beneficiaryDetails.beneficiaryId', 'must be a string'],
  ])('refuses %j', (overrides, field, reason) => {
    const error = refusal(() => encodeSubscribe(overrides));
    expect(error.messageType).toBe('subscribe');
    expect(error.field).toBe(field);
    expect(error.message).toContain(reason);
  });
});

describe('encodeClientMessage: order and the rest', () => {
  it('writes an order (W3) with the identifier checked', () => {
    const order = { messageType: 'order', quoteId: 'q-1', side: 'SELL', clientRequestId: 'ord.1', autoSubscribe: true };
    expect(encodeClientMessage({ ...order, price: '1' } as ClientMessage)).toBe(
      '{"messageType":"order","quoteId":"q-1","side":"SELL","clientRequestId":"ord.1","autoSubscribe":true}',
    );
    expect(encodeClientMessage({ ...order, autoSubscribe: undefined } as ClientMessage)).not.toContain('autoSubscribe');
  });

  it.each([
    [{ clientRequestId: 'a/b' }, 'clientRequestId'],
    [{ clientRequestId: '' }, 'clientRequestId'],
    [{ clientRequestId: 'x'.repeat(65) }, 'clientRequestId'],
    [{ side: 'buy' }, 'side'],
    [{ quoteId: '' }, 'quoteId'],
    [{ autoSubscribe: 'yes' }, 'autoSubscribe'],
  ])('refuses an order with %j', (overrides, field) => {
    const order = { messageType: 'order', quoteId: 'q-1', side: 'BUY', clientRequestId: 'ord-1', ...overrides };
    expect(refusal(() => encodeClientMessage(order as ClientMessage)).field).toBe(field);
  });

  it('writes unsubscribe, orderUnsubscribe and accountGroups', () => {
    expect(encodeClientMessage({ messageType: 'unsubscribe', subscriptionId: 's-1' })).toBe(
      '{"messageType":"unsubscribe","subscriptionId":"s-1"}',
    );
    expect(encodeClientMessage({ messageType: 'orderUnsubscribe', clientRequestId: 'o-1' })).toBe(
      '{"messageType":"orderUnsubscribe","clientRequestId":"o-1"}',
    );
    expect(encodeClientMessage({ messageType: 'accountGroups' })).toBe('{"messageType":"accountGroups"}');
    expect(encodeClientMessage({ messageType: 'accountGroups', requestId: 'r1' })).toBe(
      '{"messageType":"accountGroups","requestId":"r1"}',
    );
  });

  it('refuses bad identifiers and unknown types', () => {
    expect(refusal(() => encodeClientMessage({ messageType: 'unsubscribe', subscriptionId: '' })).field).toBe(
      'subscriptionId',
    );
    expect(refusal(() => encodeClientMessage({ messageType: 'orderUnsubscribe', clientRequestId: 'a b' })).field).toBe(
      'clientRequestId',
    );
    expect(refusal(() => encodeClientMessage({ messageType: 'accountGroups', requestId: '' })).field).toBe('requestId');
    expect(refusal(() => encodeClientMessage({ messageType: 'ping' } as unknown as ClientMessage)).field).toBe(
      'messageType',
    );
    expect(refusal(() => encodeClientMessage(null as unknown as ClientMessage)).field).toBe('messageType');
  });
});

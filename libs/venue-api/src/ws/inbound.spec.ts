import { describe, it, expect } from '@jest/globals';
import { decodeServiceFrame, type DecodeResult } from './inbound.js';
import type { AccountGroupsReply, OrderReply, PriceUpdate, SubscribeAck } from './messages.js';

const base = { chanId: 'c-1', timestamp: 1_700_000_000_123 };

function price(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...base,
    messageType: 'pricestream',
    instrument: 'BTC.USD',
    quoteId: 'q-123',
    offer: { price: '65000.50', quantity: '1.00000000', quoteAmount: '65000.50' },
    bid: { price: '2.451E-5', quantity: '1.5e-7', quoteAmount: '0.01' },
    tenor: 'T',
    settleDate: '20261124',
    tag: 'strategy-a',
    ...overrides,
  };
}

const subscribeAck = {
  ...base,
  messageType: 'subscribe',
  success: true,
  message: 'Subscribed',
  subscriptionId: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  instrument: 'BTC.USD',
  quantity: '1.00000000',
  code: '',
  tenor: 'T',
  settleDate: '',
  tag: '',
  networkId: null,
};

function decode(value: unknown): DecodeResult {
  return decodeServiceFrame(JSON.stringify(value));
}

function expectMessage(result: DecodeResult): Record<string, unknown> {
  if (result.kind !== 'message') throw new Error(`expected a message, got ${JSON.stringify(result)}`);
  return result.message as unknown as Record<string, unknown>;
}

function expectInvalid(result: DecodeResult, reason: string | RegExp): void {
  expect(result.kind).toBe('invalid');
  if (result.kind === 'invalid') expect(result.reason).toMatch(reason);
}

describe('decodeServiceFrame: framing', () => {
  it.each([
    ['not JSON', '{', 'not JSON'],
    ['a JSON array', '[1]', 'not a JSON object'],
    ['a JSON string', '"x"', 'not a JSON object'],
    ['null', 'null', 'not a JSON object'],
    ['no messageType', '{"a":1}', 'messageType missing'],
    ['a numeric messageType', '{"messageType":1}', 'messageType missing'],
    ['empty input', '', 'not JSON'],
  ])('%s is invalid', (_name, raw, reason) => {
    expectInvalid(decodeServiceFrame(raw), reason);
  });

  it('reports an unknown messageType as unknown (to count and drop)', () => {
    expect(decode({ messageType: 'heartbeat', x: 1 })).toEqual({ kind: 'unknown', messageType: 'heartbeat' });
    expect(decode({ messageType: 'toString' })).toEqual({ kind: 'unknown', messageType: 'toString' });
    expect(decode({ messageType: '__proto__' })).toEqual({ kind: 'unknown', messageType: '__proto__' });
  });

  it('accepts Buffer, ArrayBuffer and fragmented frames', () => {
    const text = JSON.stringify(price());
    const buffer = Buffer.from(text);
    expect(decodeServiceFrame(buffer).kind).toBe('message');
    const arrayBuffer = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
    expect(decodeServiceFrame(arrayBuffer).kind).toBe('message');
    expect(decodeServiceFrame([buffer.subarray(0, 10), buffer.subarray(10)]).kind).toBe('message');
  });
});

describe('decodeServiceFrame: pricestream (hot path)', () => {
  it('accepts a full update, scientific notation included, and keeps it as sent', () => {
    const message = expectMessage(decode(price())) as unknown as PriceUpdate;
    expect(message.messageType).toBe('pricestream');
    expect(message.bid.price).toBe('2.451E-5');
    expect(message.bid.quantity).toBe('1.5e-7');
    expect(message.tag).toBe('strategy-a');
  });

  it('accepts offer equal to bid, to the last decimal, and a zero amount', () => {
    const same = { price: '1.00000000000000001', quantity: '0', quoteAmount: '0' };
    expect(decode(price({ offer: same, bid: { ...same, price: '1.000000000000000010' } })).kind).toBe('message');
  });

  it('judges plain decimals on their digits: leading and trailing zeros, equal values written differently', () => {
    const side = (p: string) => ({ price: p, quantity: '0.5', quoteAmount: '00.0' });
    const accepted: Array<[string, string]> = [
      ['42.10', '42.1'],
      ['042', '42.000'],
      ['0.5', '00.50'],
      ['100', '99.999999999999999999'],
      ['10.01', '10.001'],
      ['0.000000000000000000000000001', '0.0000000000000000000000000009'],
    ];
    for (const [offer, bid] of accepted) {
      expect([offer, bid, decode(price({ offer: side(offer), bid: side(bid) })).kind]).toEqual([offer, bid, 'message']);
    }
    expectInvalid(decode(price({ offer: side('99.9'), bid: side('100') })), 'offer.price must not be below bid.price');
    expectInvalid(
      decode(price({ offer: side('42.09'), bid: side('42.1') })),
      'offer.price must not be below bid.price',
    );
    expectInvalid(decode(price({ offer: side('1'), bid: side('0.000') })), 'bid.price must be finite and positive');
    expectInvalid(decode(price({ offer: side('00'), bid: side('1') })), 'offer.price must be finite and positive');
    // '-0' is a zero amount, as before (Number('-0') >= 0)
    expect(decode(price({ bid: { price: '1', quantity: '-0', quoteAmount: '-0.0' } })).kind).toBe('message');
  });

  it('accepts an update without the optional settleDate and tag, and drops null ones', () => {
    expect(decode(price({ settleDate: undefined, tag: undefined })).kind).toBe('message');
    const message = expectMessage(decode(price({ settleDate: null, tag: null })));
    expect('settleDate' in message).toBe(false);
    expect('tag' in message).toBe(false);
  });

  it('ignores unknown properties (§9)', () => {
    expect(decode(price({ newField: { deep: [1] }, offer: { ...(price()['offer'] as object), extra: 1 } })).kind).toBe(
      'message',
    );
  });

  it('removes an own __proto__ key and never changes prototypes', () => {
    const raw = JSON.stringify(price()).replace('{', '{"__proto__":{"polluted":true},');
    const message = expectMessage(decodeServiceFrame(raw));
    expect(Object.prototype.hasOwnProperty.call(message, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(message)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    [{ chanId: 1 }, 'chanId must be a string'],
    [{ chanId: undefined }, 'chanId must be a string'],
    [{ timestamp: '1700000000000' }, 'timestamp must be an integer'],
    [{ timestamp: 1.5 }, 'timestamp must be an integer'],
    [{ instrument: '' }, 'instrument must be a non-empty string'],
    [{ quoteId: undefined }, 'quoteId must be a non-empty string'],
    [{ quoteId: 7 }, 'quoteId must be a non-empty string'],
    [
      { quoteId: 'q'.repeat(513) },
      'quoteId must be 1–512 characters without control or format characters or lone surrogates',
    ],
    [
      { quoteId: 'q\u0000\n' },
      'quoteId must be 1–512 characters without control or format characters or lone surrogates',
    ],
    [
      { quoteId: 'q\u202e1' },
      'quoteId must be 1–512 characters without control or format characters or lone surrogates',
    ],
    // a lone UTF-16 surrogate (the JSON escape \ud800 unpaired) cannot be sent back as UTF-8: no tradable quote
    [
      { quoteId: 'q\ud800' },
      'quoteId must be 1–512 characters without control or format characters or lone surrogates',
    ],
    [{ quoteId: '\udc00' }, 'quoteId must be 1–512 characters without control or format characters or lone surrogates'],
    [{ tenor: undefined }, 'tenor must be a string'],
    [{ offer: undefined }, 'offer must be an object'],
    [{ bid: [] }, 'bid must be an object'],
    [{ offer: { price: 65000.5, quantity: '1', quoteAmount: '1' } }, 'offer.price must be a decimal string'],
    [{ offer: { price: '1', quantity: '1,5', quoteAmount: '1' } }, 'offer.quantity must be a decimal string'],
    [{ bid: { price: '1', quantity: '1', quoteAmount: 'NaN' } }, 'bid.quoteAmount must be a decimal string'],
    [{ bid: { price: ' 1', quantity: '1', quoteAmount: '1' } }, 'bid.price must be a decimal string'],
    [{ bid: { price: '1', quantity: '1' } }, 'bid.quoteAmount must be a decimal string'],
    [{ settleDate: 20261124 }, 'settleDate must be a string'],
    [{ tag: false }, 'tag must be a string'],
    [{ offer: { price: '1e309', quantity: '1', quoteAmount: '1' } }, 'offer.price must be finite and positive'],
    [{ bid: { price: '0', quantity: '1', quoteAmount: '0' } }, 'bid.price must be finite and positive'],
    [{ bid: { price: '-1', quantity: '1', quoteAmount: '1' } }, 'bid.price must be finite and positive'],
    [{ bid: { price: '1e-400', quantity: '1', quoteAmount: '1' } }, 'bid.price must be finite and positive'],
    [{ offer: { price: '1', quantity: '-1', quoteAmount: '1' } }, 'offer amounts must be finite and not negative'],
    [{ bid: { price: '1', quantity: '1', quoteAmount: '9e999' } }, 'bid amounts must be finite and not negative'],
    [{ bid: { price: '70000', quantity: '1', quoteAmount: '1' } }, 'offer.price must not be below bid.price'],
    [
      {
        offer: { price: '1.00000000000000001', quantity: '1', quoteAmount: '1' },
        bid: { price: '1.00000000000000002', quantity: '1', quoteAmount: '1' },
      },
      'offer.price must not be below bid.price',
    ],
  ])('rejects %j', (overrides, reason) => {
    const result = decode(price(overrides));
    expectInvalid(result, reason);
    if (result.kind === 'invalid') expect(result.messageType).toBe('pricestream');
  });
});

describe('decodeServiceFrame: subscribe acknowledgement (§2.1)', () => {
  const ack = subscribeAck;

  it('accepts a success and keeps only declared properties', () => {
    const message = expectMessage(decode({ ...ack, surprise: 1, constructor: 'x' })) as unknown as SubscribeAck;
    expect(message).toMatchObject({ messageType: 'subscribe', success: true, quantity: '1.00000000', networkId: null });
    expect('surprise' in message).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(message, 'constructor')).toBe(false);
  });

  it('accepts a failure that echoes the raw quantity unparsed', () => {
    const message = expectMessage(
      decode({ ...ack, success: false, code: 'RFS100009', message: 'bad', quantity: 'abc' }),
    );
    expect(message['quantity']).toBe('abc');
  });

  it('rejects a success whose quantity is not a decimal', () => {
    expectInvalid(decode({ ...ack, quantity: 'abc' }), 'quantity must be a decimal string');
  });

  it.each([
    [{ success: 'true' }, 'success must be a boolean'],
    [{ subscriptionId: undefined }, 'subscriptionId must be a string'],
    [{ message: null }, 'message must be a string'],
    [{ timestamp: 'now' }, 'timestamp must be an integer'],
    [{ networkId: 5 }, 'networkId must be a string'],
  ])('rejects %j', (overrides, reason) => {
    expectInvalid(decode({ ...ack, ...overrides }), reason);
  });

  it('does not let __proto__ through', () => {
    const raw = JSON.stringify(ack).replace('{', '{"__proto__":{"success":false},');
    const message = expectMessage(decodeServiceFrame(raw));
    expect(Object.prototype.hasOwnProperty.call(message, '__proto__')).toBe(false);
    expect(message['success']).toBe(true);
  });
});

describe('decodeServiceFrame: order replies (W5, W6)', () => {
  const pending = {
    ...base,
    messageType: 'order',
    clientRequestId: 'ord-1',
    transactionId: 't-1',
    quoteId: 'q-1',
    side: 'BUY',
    orderStatus: 'PENDING',
    subscriptionStatus: 'SUBSCRIBED',
    sessionId: 's-1',
    code: '',
    message: '',
  };

  it('accepts PENDING, SUCCESS with execution details, and a null sessionId', () => {
    expect(decode(pending).kind).toBe('message');
    const success = expectMessage(
      decode({
        ...pending,
        orderStatus: 'SUCCESS',
        sessionId: null,
        instrument: 'BTC.USD',
        price: '6.5e4',
        quantity: '1.00000000',
        quoteAmount: '65000.00',
        currency: 'BTC',
        settleDate: '20261124',
        tradeRef: 'TR-1',
      }),
    ) as unknown as OrderReply;
    expect(success.sessionId).toBeNull();
    expect(success.price).toBe('6.5e4');
  });

  it('accepts a minimal reply: orderStatus and one identifier to correlate (fields are not shown, §4.2)', () => {
    for (const id of [{ clientRequestId: 'ord-1' }, { transactionId: 't-1' }, { quoteId: 'q-1' }]) {
      const result = decode({ messageType: 'order', orderStatus: 'SUCCESS', ...id });
      expect(expectMessage(result)).toEqual({ messageType: 'order', orderStatus: 'SUCCESS', ...id });
      expect(result.kind === 'message' && result.oddities).toBeFalsy();
    }
  });

  it.each([
    [{ orderStatus: 'DONE' }, 'orderStatus must be one of'],
    [{ orderStatus: undefined }, 'orderStatus must be one of'],
    [
      { clientRequestId: undefined, transactionId: undefined, quoteId: undefined },
      /clientRequestId or transactionId or quoteId missing/,
    ],
    [{ clientRequestId: '', transactionId: 5, quoteId: undefined }, 'clientRequestId must be a non-empty string'],
  ])('rejects %j: nothing to decide or correlate on', (overrides, reason) => {
    expectInvalid(decode({ ...pending, ...overrides }), reason);
  });

  it.each([
    [{ side: 'buy' }, 'side', 'side must be one of'],
    [{ subscriptionStatus: 'MAYBE' }, 'subscriptionStatus', 'subscriptionStatus must be one of'],
    [{ code: 7 }, 'code', 'code must be a string'],
    [{ price: '1e' }, 'price', 'price must be a decimal string'],
    [{ quantity: 1 }, 'quantity', 'quantity must be a decimal string'],
    [{ transactionId: 3 }, 'transactionId', 'transactionId must be a non-empty string'],
    [{ chanId: 9, timestamp: 'now' }, 'timestamp', 'timestamp must be an integer'],
  ])('keeps the outcome of %j, without the odd field, and reports it', (overrides, field, oddity) => {
    const result = decode({ ...pending, orderStatus: 'SUCCESS', ...overrides });
    const message = expectMessage(result);
    expect(message['orderStatus']).toBe('SUCCESS');
    expect(message['clientRequestId']).toBe('ord-1');
    expect(message).not.toHaveProperty(field);
    expect(result.kind === 'message' ? result.oddities : []).toContainEqual(expect.stringContaining(oddity));
  });

  it('reports oddities without echoing the values', () => {
    const result = decode({ ...pending, code: { huge: 'x'.repeat(100_000) }, message: 'y'.repeat(5) });
    expect(result.kind).toBe('message');
    expect(JSON.stringify(result.kind === 'message' ? result.oddities : '').length).toBeLessThan(200);
  });
});

describe('decodeServiceFrame: other frames (W8–W12)', () => {
  it('accepts orderUnsubscribe, unsubscribe, streamStop and error frames', () => {
    expect(
      decode({
        ...base,
        messageType: 'orderUnsubscribe',
        clientRequestId: 'o',
        success: false,
        code: 'ORDER_NOT_FOUND',
      }).kind,
    ).toBe('message');
    expect(
      decode({
        ...base,
        messageType: 'unsubscribe',
        subscriptionId: 's',
        tag: 't',
        success: true,
        message: 'Unsubscribed',
      }).kind,
    ).toBe('message');
    expect(decode({ ...base, messageType: 'streamStop', instrument: 'BTC.USD', tenor: 'T', tag: 't' }).kind).toBe(
      'message',
    );
    expect(decode({ ...base, messageType: 'error', code: 'INVALID_MESSAGE', message: 'x' }).kind).toBe('message');
  });

  it('accepts them without the fields we only guessed at, and without chanId and timestamp', () => {
    expect(decode({ messageType: 'streamStop' }).kind).toBe('message');
    expect(decode({ messageType: 'unsubscribe', tag: 't' }).kind).toBe('message');
    expect(decode({ messageType: 'unsubscribe', subscriptionId: 's' }).kind).toBe('message');
    expect(decode({ messageType: 'orderUnsubscribe', clientRequestId: 'o' }).kind).toBe('message');
    expect(decode({ messageType: 'error' }).kind).toBe('message');
    const odd = decode({ ...base, messageType: 'error', code: 1, message: 'x' });
    expect(expectMessage(odd)).toEqual({ ...base, messageType: 'error', message: 'x' });
    expect(odd.kind === 'message' && odd.oddities).toEqual(['code must be a string']);
    const status = decode({ messageType: 'orderUnsubscribe', clientRequestId: 'o', subscriptionStatus: 'X' });
    expect(expectMessage(status)).toEqual({ messageType: 'orderUnsubscribe', clientRequestId: 'o' });
  });

  it('rejects those that cannot be correlated', () => {
    expectInvalid(decode({ ...base, messageType: 'unsubscribe', success: true }), 'subscriptionId or tag missing');
    expectInvalid(
      decode({ messageType: 'orderUnsubscribe', success: true }),
      'clientRequestId must be a non-empty string',
    );
  });

  it('validates account groups element by element', () => {
    const reply = {
      ...base,
      messageType: 'accountGroups',
      requestId: 'r1',
      success: true,
      accountGroups: [
        { uuid: 'g1', name: 'Default', natural: true, ownerShortcode: 'ABC', extra: 1 },
        { uuid: 'g2', name: 'Sub', natural: false },
      ],
    };
    const message = expectMessage(decode(reply)) as unknown as AccountGroupsReply;
    expect(message.accountGroups).toEqual([
      { uuid: 'g1', name: 'Default', natural: true, ownerShortcode: 'ABC' },
      { uuid: 'g2', name: 'Sub', natural: false },
    ]);
    const odd = decode({
      ...reply,
      accountGroups: [{ uuid: 'g1', name: 'D', natural: 'yes' }, 'g2', { name: 'no id' }, reply.accountGroups[1]],
    });
    expect((expectMessage(odd) as unknown as AccountGroupsReply).accountGroups).toEqual([
      { uuid: 'g1', name: 'D' },
      { uuid: 'g2', name: 'Sub', natural: false },
    ]);
    expect(odd.kind === 'message' && odd.oddities).toEqual([
      'accountGroups.0.natural must be a boolean value',
      'accountGroups.1 must be an object',
      'accountGroups.2.uuid must be a string',
    ]);
    // the reply's fields are not shown (W12): no `success`, entries with only a uuid
    const minimal = expectMessage(
      decode({ messageType: 'accountGroups', accountGroups: [{ uuid: 'g9' }] }),
    ) as unknown as AccountGroupsReply;
    expect(minimal.success).toBeUndefined();
    expect(minimal.accountGroups).toEqual([{ uuid: 'g9' }]);
    expectInvalid(decode({ ...reply, accountGroups: undefined }), 'accountGroups must be an array');
    expectInvalid(decode({ ...reply, accountGroups: 'g1' }), 'accountGroups must be an array');
  });
});

describe('decodeServiceFrame: identifiers with a lone UTF-16 surrogate (spec-gaps K8)', () => {
  // Half a character (`\ud800` in the frame's JSON) cannot be written as UTF-8: sent back to the venue (an
  // unsubscribe, an order), or kept in NATS KV, it would be U+FFFD — another id than the venue's.
  const lone = 'id\ud800';
  const rule = (field: string) => `${field} must not hold a lone UTF-16 surrogate`;
  const ack = { ...subscribeAck, tag: 't-1' };

  it('refuses a subscribe acknowledgement whose subscriptionId or tag holds one', () => {
    expect(decode(ack).kind).toBe('message');
    expectInvalid(decode({ ...ack, subscriptionId: lone }), rule('subscriptionId'));
    expectInvalid(decode({ ...ack, tag: lone }), rule('tag'));
    // a pair is one character (an emoji): taken
    expect(decode({ ...ack, subscriptionId: 's\ud83d\ude00' }).kind).toBe('message');
  });

  it('drops such an identifier from a liberally read frame, and refuses the frame when nothing else correlates it', () => {
    const order = { messageType: 'order', orderStatus: 'SUCCESS', clientRequestId: 'ord-1', transactionId: 't-1' };
    for (const field of ['clientRequestId', 'transactionId', 'quoteId'] as const) {
      const result = decode({ ...order, [field]: lone });
      expect(expectMessage(result)).not.toHaveProperty(field);
      expect(result.kind === 'message' ? result.oddities : []).toContainEqual(expect.stringContaining(rule(field)));
      expectInvalid(decode({ messageType: 'order', orderStatus: 'SUCCESS', [field]: lone }), rule(field));
    }
    expectInvalid(decode({ messageType: 'orderUnsubscribe', clientRequestId: lone }), rule('clientRequestId'));
    expectInvalid(decode({ messageType: 'unsubscribe', subscriptionId: lone }), rule('subscriptionId'));
    expectInvalid(decode({ messageType: 'unsubscribe', tag: lone }), rule('tag'));
    const stop = decode({ messageType: 'streamStop', tag: lone, code: 'X' });
    expect(expectMessage(stop)).toEqual({ messageType: 'streamStop', code: 'X' });
  });

  it('drops an account group whose uuid holds one (it would be a price subject token)', () => {
    const odd = decode({ messageType: 'accountGroups', accountGroups: [{ uuid: lone }, { uuid: 'g2' }] });
    expect((expectMessage(odd) as unknown as AccountGroupsReply).accountGroups).toEqual([{ uuid: 'g2' }]);
    expect(odd.kind === 'message' && odd.oddities).toEqual([
      expect.stringContaining(`accountGroups.0.${rule('uuid')}`),
    ]);
  });
});

describe('decodeServiceFrame: never throws', () => {
  it('turns odd raw input into invalid', () => {
    expectInvalid(decodeServiceFrame(Buffer.from([0xff, 0xfe, 0x00])), 'not JSON');
    expectInvalid(decodeServiceFrame([]), 'not JSON');
    expectInvalid(decodeServiceFrame(new ArrayBuffer(0)), 'not JSON');
  });
});

/**
 * §2.1 subscription acknowledgement, §3.5, §4.2 subscribe request, §7.1 codes, spec-gaps W16/W17.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { startWsVenue, subscribeRequest, unsubscribeAfterEach, type WsVenue } from './ws-harness.js';
import { isType, type WsTestClient } from './ws-test-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let v: WsVenue;
let c: WsTestClient;

beforeAll(async () => {
  v = await startWsVenue();
  c = await v.connect();
});
afterAll(async () => {
  await v.close();
});

const trackStream = unsubscribeAfterEach();

/** Sends one subscribe and takes its acknowledgement (matched by tag). */
async function ack(fields: Record<string, unknown>, client = c): Promise<Record<string, unknown>> {
  const tag = typeof fields['tag'] === 'string' ? fields['tag'] : `t-${Math.random().toString(36).slice(2)}`;
  client.send(subscribeRequest(v.venue, { ...fields, tag }));
  const json = (await client.take(isType('subscribe', { tag }))).json;
  if (json['success'] === true) trackStream(client, json['subscriptionId']);
  return json;
}

describe('§2.1 acknowledgement of a successful subscribe', () => {
  it('carries every required field with the success shape', async () => {
    const a = await ack({ quantity: '1.5', tag: 'fields' });
    expect(a).toMatchObject({
      messageType: 'subscribe',
      success: true,
      message: 'Subscribed',
      instrument: 'BTC.USD',
      quantity: '1.50000000',
      code: '',
      tenor: 'T',
      settleDate: '',
      tag: 'fields',
      networkId: null,
    });
    expect(a['subscriptionId']).toMatch(UUID);
    expect(typeof a['chanId']).toBe('string');
    expect(Number.isInteger(a['timestamp'])).toBe(true);
  });

  it('normalises the quantity echo to 8 decimals half-even, not converted (W17)', async () => {
    expect((await ack({ quantity: '0.123456785' }))['quantity']).toBe('0.12345678');
    expect((await ack({ quantity: '0.123456775', tenor: 'T1' }))['quantity']).toBe('0.12345678');
    expect((await ack({ quantity: '0.123456765', tenor: 'T1' }))['quantity']).toBe('0.12345676');
    expect((await ack({ quantity: '1000', currency: 'USD' }))['quantity']).toBe('1000.00000000');
  });

  it('echoes an empty tag when none was sent', async () => {
    const request = subscribeRequest(v.venue, { quantity: '0.25' });
    c.send(request);
    const a = await c.take(isType('subscribe', { quantity: '0.25000000' }));
    expect(a.json['tag']).toBe('');
  });

  it('networkId: null without a settlement block; echoed or resolved with one', async () => {
    const s = v.venue.seed;
    expect((await ack({ quantity: '0.31' }))['networkId']).toBeNull();
    expect(
      (await ack({ quantity: '0.32', beneficiaryDetails: { beneficiaryId: s.beneficiaryEntity, networkId: 'NET1' } }))[
        'networkId'
      ],
    ).toBe('NET1');
    expect(
      (
        await ack({
          quantity: '0.33',
          beneficiaryDetails: { beneficiaryId: s.beneficiaryEntity, payoutCurrency: 'BTC' },
        })
      )['networkId'],
    ).toBe('SVC_TRANSFER');
    const fiat = await ack({
      quantity: '0.34',
      beneficiaryDetails: { beneficiaryId: s.beneficiaryEntity, payoutCurrency: 'USD' },
    });
    expect(fiat['success']).toBe(true);
    expect(typeof fiat['networkId']).toBe('string');
    expect(fiat['networkId']).not.toBe('SVC_TRANSFER');
    expect(
      (await ack({ quantity: '0.35', senderDetails: { senderId: s.senderEntity, payinCurrency: 'BTC' } }))['networkId'],
    ).toBe('SVC_SENDER');
  });
});

describe('§2.1 rules', () => {
  it('rule 1: every subscribe gets exactly one acknowledgement, success or not', async () => {
    const tags = ['one-a', 'one-b', 'one-c', 'one-d'];
    c.send(subscribeRequest(v.venue, { tag: tags[0], quantity: '0.41' }));
    c.send(subscribeRequest(v.venue, { tag: tags[1], quantity: 'bad' }));
    c.send(subscribeRequest(v.venue, { tag: tags[2], instrument: '' }));
    c.send(subscribeRequest(v.venue, { tag: tags[3], quantity: '0.41' }));
    await c.barrier();
    for (const tag of tags) expect(c.seen(isType('subscribe', { tag }))).toHaveLength(1);
  });

  it('rule 2: a rejected subscribe is success:false with a code and never an error frame', async () => {
    const errorsBefore = c.seen(isType('error')).length;
    const a = await ack({ quantity: '-1' });
    expect(a).toMatchObject({ success: false, code: 'RFS100009' });
    expect(typeof a['message']).toBe('string');
    await c.barrier();
    expect(c.seen(isType('error'))).toHaveLength(errorsBefore);
  });

  it('rule 3 / §4.2: unsubscribing a failed or unknown subscriptionId is silently ignored', async () => {
    await c.barrier();
    const repliesBefore = c.seen(isType('unsubscribe')).length;
    const failed = await ack({ instrument: 'NOPE.USD', currency: 'USD' });
    expect(failed['success']).toBe(false);
    expect(failed['subscriptionId']).toMatch(UUID);
    c.send({ messageType: 'unsubscribe', subscriptionId: failed['subscriptionId'] });
    c.send({ messageType: 'unsubscribe', subscriptionId: '00000000-0000-4000-8000-000000000000' });
    await c.barrier();
    expect(c.seen(isType('unsubscribe'))).toHaveLength(repliesBefore);
  });

  it('a failed acknowledgement echoes the raw quantity unparsed, settleDate empty, the tag and tenor', async () => {
    const a = await ack({ quantity: '1.1234567891e', tenor: 'TOM', tag: 'raw' });
    expect(a).toMatchObject({
      success: false,
      code: 'RFS100009',
      quantity: '1.1234567891e',
      settleDate: '',
      tag: 'raw',
      tenor: 'TOM',
      instrument: 'BTC.USD',
    });
    expect(a['subscriptionId']).toMatch(UUID);
  });

  it('a failed acknowledgement with a settlement block still carries its networkId', async () => {
    const a = await ack({ quantity: 'x', beneficiaryDetails: { networkId: 'NETX' } });
    expect(a).toMatchObject({ success: false, networkId: 'NETX' });
  });

  it('a quantity sent as a JSON number is refused (W31) and echoed as the text sent, unparsed', async () => {
    const request = { ...subscribeRequest(v.venue, { tag: 'num-qty' }) };
    delete request['quantity'];
    for (const [tag, text] of [
      ['num-1', '1.50'],
      ['num-2', '1e21'],
      ['num-3', '0.123456789012345678901'],
    ] as const) {
      c.sendRaw(`{"quantity":${text},${JSON.stringify({ ...request, tag }).slice(1)}`);
      const a = (await c.take(isType('subscribe', { tag }))).json;
      expect(a).toMatchObject({ success: false, code: 'RFS100009', quantity: text });
    }
  });

  it('a failure for a reason other than the quantity still echoes the raw quantity, not normalised', async () => {
    expect(await ack({ instrument: 'BTC.EUR', quantity: '00.123456789' })).toMatchObject({
      success: false,
      code: 'RFS100011',
      quantity: '00.123456789',
    });
    expect(await ack({ tenor: '', quantity: '2' })).toMatchObject({ code: 'RFS100021', quantity: '2' });
  });

  it('a request carrying both settlement blocks is refused with a networkId set, not null', async () => {
    const a = await ack({
      beneficiaryDetails: { payoutCurrency: 'BTC', networkId: 'NETB' },
      senderDetails: { payinCurrency: 'BTC' },
    });
    expect(a).toMatchObject({ success: false, code: 'INVALID_SETTLEMENT_DETAILS' });
    expect(typeof a['networkId']).toBe('string');
  });
});

describe('§7.1 subscribe codes (W16 order)', () => {
  it.each([
    ['RFS100004 instrument blank', { instrument: '' }, 'RFS100004'],
    ['RFS100004 instrument missing', { instrument: undefined }, 'RFS100004'],
    ['RFS100005 instrument not BASE.QUOTE', { instrument: 'BTCUSD' }, 'RFS100005'],
    ['RFS100008 currency not of the pair', { currency: 'EUR' }, 'RFS100008'],
    ['RFS100008 before the pair lookup', { instrument: 'AAA.BBB', currency: 'BTC' }, 'RFS100008'],
    ['RFS100009 quantity not a decimal', { quantity: 'ten' }, 'RFS100009'],
    ['RFS100009 quantity zero', { quantity: '0' }, 'RFS100009'],
    ['RFS100009 quantity rounds to zero at 8 dp', { quantity: '0.000000004' }, 'RFS100009'],
    ['RFS100021 tenor blank', { tenor: '' }, 'RFS100021'],
    ['RFS600004 account group blank', { accountGrpUuid: ' ' }, 'RFS600004'],
    ['RFS600004 account group not the user’s', { accountGrpUuid: '11111111-1111-4111-8111-111111111111' }, 'RFS600004'],
    ['RFS100011 pair not streaming', { instrument: 'BTC.EUR' }, 'RFS100011'],
    ['RFS100011 pair match is case-sensitive', { instrument: 'btc.usd', currency: 'btc' }, 'RFS100011'],
    ['RFS100011 tenor with no live price', { tenor: '1Y' }, 'RFS100011'],
    ['RFS100011 size above the maximum', { quantity: '1000000' }, 'RFS100011'],
    ['RFS100011 size below the minimum (W26)', { quantity: '0.00009' }, 'RFS100011'],
    [
      'RFS100011 quote-currency size below the minimum at the mid (W26)',
      { currency: 'USD', quantity: '1' },
      'RFS100011',
    ],
    [
      'INVALID_SETTLEMENT_DETAILS both blocks',
      { beneficiaryDetails: { payoutCurrency: 'BTC' }, senderDetails: { payinCurrency: 'BTC' } },
      'INVALID_SETTLEMENT_DETAILS',
    ],
  ])('%s', async (_name, fields, code) => {
    const a = await ack(fields);
    expect(a).toMatchObject({ success: false, code });
  });

  it('INVALID_SETTLEMENT_DETAILS for unusable settlement blocks (W22)', async () => {
    const s = v.venue.seed;
    const cases: Array<Record<string, unknown>> = [
      { beneficiaryDetails: { beneficiaryId: s.beneficiaryDisabled } },
      { beneficiaryDetails: { beneficiaryId: '00000000-0000-4000-8000-00000000dead' } },
      { beneficiaryDetails: { beneficiaryId: s.beneficiaryEntity, payoutCurrency: 'EUR' } },
      { senderDetails: { senderId: s.senderEntity, payinCurrency: 'USD' } },
      { beneficiaryDetails: 'not an object' },
    ];
    for (const fields of cases) {
      expect(await ack({ quantity: '0.51', ...fields })).toMatchObject({
        success: false,
        code: 'INVALID_SETTLEMENT_DETAILS',
      });
    }
  });

  it('RFS600004 wins over RFS100011 only by order: blank group is checked before the pair', async () => {
    expect(await ack({ instrument: 'BTC.EUR', accountGrpUuid: '' })).toMatchObject({ code: 'RFS600004' });
  });

  it('PRE200035 for a pair disabled for the account', async () => {
    const second = await v.connect({ credentials: v.venue.credentials.secondUser });
    const a = await ack(
      {
        instrument: 'SHIB.USD',
        currency: 'SHIB',
        quantity: '1000000',
        accountGrpUuid: v.venue.seed.user2DefaultGroup,
      },
      second,
    );
    expect(a).toMatchObject({ success: false, code: 'PRE200035' });
  });

  it('RFS100017 for a subscription already held; a different size is a different subscription', async () => {
    expect(await ack({ quantity: '0.61' })).toMatchObject({ success: true });
    expect(await ack({ quantity: '0.61' })).toMatchObject({ success: false, code: 'RFS100017' });
    expect(await ack({ quantity: '0.610000001' })).toMatchObject({ success: false, code: 'RFS100017' });
    expect(await ack({ quantity: '0.62' })).toMatchObject({ success: true });
  });

  it('RFS100017 is per connection: another connection may hold the same stream', async () => {
    const other = await v.connect();
    expect(await ack({ quantity: '0.71' })).toMatchObject({ success: true });
    expect(await ack({ quantity: '0.71' }, other)).toMatchObject({ success: true });
  });

  it('RFS100013 for an unexpected service-side failure (injected)', async () => {
    expect((await v.admin('/faults/ws/fail-subscribe', { count: 1 })).status).toBe(200);
    expect(await ack({ quantity: '0.81' })).toMatchObject({ success: false, code: 'RFS100013' });
    expect(await ack({ quantity: '0.81' })).toMatchObject({ success: true });
  });

  it('accepts the venue tenors by name', async () => {
    for (const [i, tenor] of ['T', 'T1', 'TOD', 'TOM', 'SP'].entries()) {
      expect(await ack({ quantity: `0.9${i}`, tenor })).toMatchObject({ success: true, tenor });
    }
  });
});

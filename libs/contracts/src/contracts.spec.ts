import { describe, expect, it } from '@jest/globals';
import { isParsableDecimal } from '#venue-api';
import {
  ACCOUNT_GROUP_UUID_RULE,
  CCY_RULE,
  BalanceQuery,
  canFollowWithdrawalState,
  WITHDRAWAL_STATES,
  boundedText,
  declaredFields,
  isDecimalString,
  isIsoInstant,
  listCursor,
  parseListCursor,
  StateQuery,
  TradeQuery,
  TransactionGetRequest,
  TransactionListQuery,
  WithdrawalCancelRequest,
  WithdrawalGetRequest,
  WithdrawalListRequest,
  WithdrawalSubmitRequest,
  venueReferenceRule,
  errorReply,
  KillSwitchRequest,
  MAX_ERROR_MESSAGE,
  OrderCommand,
  orderOutcomeMsgId,
  PairQuery,
  RiskLimitsChange,
  RiskScopeQuery,
  TradingStateChange,
  parseContract,
  printableName,
  sizeToken,
  StreamRelease,
  StreamRequest,
  SubjectTokenError,
  Subjects,
  topicsOf,
  type OrderOutcome,
  type Topic,
} from './index.js';

describe('Subjects', () => {
  const subjects = new Subjects('gw.v1', 'acct1');

  it('lays out a price subject a wildcard can select by group and base currency', () => {
    const subject = subjects.price({
      accountGroup: 'g-1',
      instrument: 'BTC.USD',
      tenor: 'T',
      currency: 'BTC',
      quantity: '0.50',
    });
    expect(subject).toBe('gw.v1.price.g-1.BTC.USD.T.BTC.0_5');
    expect(subject.startsWith('gw.v1.price.g-1.BTC.')).toBe(true);
  });

  it('writes sizes exactly, from the string', () => {
    expect(sizeToken('100')).toBe('100');
    expect(sizeToken('100.000')).toBe('100');
    expect(sizeToken('1e-7')).toBe('0_0000001');
    expect(sizeToken('1.5E3')).toBe('1500');
    expect(sizeToken('000.12345678')).toBe('0_12345678');
    expect(sizeToken('12345678901234567890.123456789')).toBe('12345678901234567890_123456789');
    expect(() => sizeToken('-1')).toThrow(SubjectTokenError);
    expect(() => sizeToken('abc')).toThrow(SubjectTokenError);
  });

  it('scopes commands and outcomes by account', () => {
    expect(subjects.orderCommand).toBe('gw.v1.acct1.order.command');
    expect(subjects.orderOutcome('cr-1')).toBe('gw.v1.acct1.order.outcome.cr-1');
    expect(subjects.allOrderOutcomes).toBe('gw.v1.acct1.order.outcome.>');
  });

  it('refuses tokens that would break the subject', () => {
    expect(() => subjects.orderOutcome('a.b')).toThrow(SubjectTokenError);
    expect(() => new Subjects('gw.v1', 'a b')).toThrow(SubjectTokenError);
    expect(() =>
      subjects.price({ accountGroup: 'g', instrument: 'BTCUSD', tenor: 'T', currency: 'BTC', quantity: '1' }),
    ).toThrow(SubjectTokenError);
  });
});

describe('parseContract', () => {
  const valid = {
    instrument: 'BTC.USD',
    quantity: '0.5',
    currency: 'BTC',
    tenor: 'T',
    accountGroup: 'g-1',
    requester: 's1',
  };

  it('accepts a valid stream request and keeps the quantity a string', () => {
    const parsed = parseContract(StreamRequest, JSON.stringify(valid));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.value).toBeInstanceOf(StreamRequest);
      expect(parsed.value.quantity).toBe('0.5');
    }
  });

  it('refuses a payload nested deeper than any contract, in an undeclared field or an array, without throwing', () => {
    const nest = (depth: number, inner: string, open: string, close: string) =>
      `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
    for (const deep of [nest(10_000, '1', '{"a":', '}'), nest(10_000, '1', '[', ']'), nest(40, '1', '{"a":', '}')]) {
      expect(() => parseContract(StreamRequest, `{"instrument":"BTC.USD","x":${deep}}`)).not.toThrow();
      expect(parseContract(StreamRequest, `{"instrument":"BTC.USD","x":${deep}}`)).toEqual({
        ok: false,
        problems: ['payload is nested deeper than 32 levels'],
      });
    }
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, x: { a: { b: 1 } } })).ok).toBe(true);
  });

  it('an optional field may be absent, never null; numbers are JSON numbers, never strings (outside tester)', () => {
    expect(parseContract(WithdrawalCancelRequest, '{"requestId":null}')).toMatchObject({ ok: false });
    expect(parseContract(WithdrawalGetRequest, '{"idempotencyKey":null}')).toMatchObject({ ok: false });
    expect(parseContract(WithdrawalGetRequest, '{"requestId":"abc123"}')).toMatchObject({ ok: true });
    for (const leaseSeconds of ['1e3', '0x10', '60', true, null]) {
      expect(parseContract(StreamRequest, JSON.stringify({ ...valid, leaseSeconds }))).toMatchObject({ ok: false });
    }
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, leaseSeconds: 60 }))).toMatchObject({ ok: true });
    expect(parseContract(TradeQuery, '{"limit":"10"}')).toMatchObject({ ok: false });
    expect(parseContract(TradeQuery, '{"limit":10}')).toMatchObject({ ok: true });
    expect(parseContract(WithdrawalListRequest, '{"limit":"5"}')).toMatchObject({ ok: false });
  });

  it('a payload of more than 1000 fields is refused before any is copied; declared fields only are read', () => {
    const wide = { ...valid, ...Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, 1])) };
    expect(parseContract(StreamRequest, JSON.stringify(wide))).toEqual({
      ok: false,
      problems: ['payload has more than 1000 fields'],
    });
    const nestedWide = { ...valid, x: Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, 1])) };
    expect(parseContract(StreamRequest, JSON.stringify(nestedWide)).ok).toBe(false);
    const parsed = parseContract(StreamRequest, JSON.stringify({ ...valid, extra: 'ignored' }));
    expect(parsed.ok && 'extra' in parsed.value).toBe(false);
  });

  it('an unknown field is named bounded, its unprintable and bidi characters written as \\u escapes', () => {
    expect(printableName('k0\u0000\u202eZZ\n')).toBe('k0\\u0000\\u202eZZ\\u000a');
    expect(printableName('é€日本')).toBe('é€日本');
    expect(printableName('x'.repeat(100))).toBe(`${'x'.repeat(64)}…`);
    const parsed = parseContract(BalanceQuery, JSON.stringify({ 'a\u202eb': 1 }));
    expect(parsed).toEqual({ ok: false, problems: ['unknown field "a\\u202eb"'] });
  });

  it('lists every problem of a bad request without throwing', () => {
    const parsed = parseContract(
      StreamRequest,
      JSON.stringify({ ...valid, quantity: '0.123456789', instrument: 'BTCUSD', tenor: '' }),
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      const text = parsed.problems.join('\n');
      expect(text).toMatch(/quantity/);
      expect(text).toMatch(/instrument/);
      expect(text).toMatch(/tenor/);
    }
  });

  it('tells a field breaking several rules with one message once', () => {
    const parsed = parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops', reason: '' }));
    expect(parsed).toEqual({
      ok: false,
      problems: ['reason must say why: 1-1024 characters without control or format characters, not only spaces'],
    });
  });

  it('tells a missing field that it is required, not every rule its value would have had to meet', () => {
    expect(parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops' }))).toEqual({
      ok: false,
      problems: ['reason is required'],
    });
    const empty = parseContract(StreamRequest, '{}');
    expect(empty.ok).toBe(false);
    if (empty.ok) return;
    expect(empty.problems).toContain('instrument is required');
    expect(empty.problems.every((p) => p.endsWith(' is required'))).toBe(true);
  });

  it('refuses a requester of white space only, or holding control or format characters (it is echoed in replies)', () => {
    for (const requester of ['   ', 'a\u0000b', 'a\u001b[31m', 'a\u202eb']) {
      expect(parseContract(StreamRequest, JSON.stringify({ ...valid, requester }))).toEqual({
        ok: false,
        problems: ['requester must be 1–128 characters without control or format characters, not only spaces'],
      });
      expect(parseContract(StreamRelease, JSON.stringify({ subject: 'gw.v1.price.x', requester })).ok).toBe(false);
    }
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, requester: 'desk één / α-1' })).ok).toBe(true);
  });

  it('tells a value of the wrong JSON type only its type, not the bounds it was never compared with', () => {
    const parsed = parseContract(
      StreamRequest,
      JSON.stringify({
        instrument: 'BTC.USD',
        quantity: '1',
        currency: 'BTC',
        tenor: 'T',
        accountGroup: 'g1',
        requester: 'r',
        leaseSeconds: '30',
      }),
    );
    expect(parsed).toEqual({ ok: false, problems: ['leaseSeconds must be an integer number'] });
  });

  it('an audited change says who and why with more than white space', () => {
    expect(parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops', reason: '   ' }))).toEqual({
      ok: false,
      problems: ['reason must say why: 1-1024 characters without control or format characters, not only spaces'],
    });
    expect(parseContract(KillSwitchRequest, JSON.stringify({ by: ' ', reason: 'incident' })).ok).toBe(false);
    expect(parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops', reason: 'incident 42' })).ok).toBe(true);
  });

  it('an audited change refuses control, format and line-separator characters in who and why (security tester: a reason of ESC[2K, CR and a fake line hid a HALTED strategy in `gw trading`)', () => {
    const hostile = [
      'a\u0000b',
      'a\u0007',
      'x\u001b[2K\rglobal ACTIVE',
      'a\nb',
      'a\rb',
      'a\u0085',
      'a\u202eb',
      'a\u2028',
    ];
    const rule = 'reason must say why: 1-1024 characters without control or format characters, not only spaces';
    for (const reason of hostile) {
      const kill = parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops', reason }));
      expect(kill).toEqual({ ok: false, problems: [rule] });
      const state = { scope: 'strategy', id: 's1', state: 'HALTED', by: 'ops', reason };
      expect(parseContract(TradingStateChange, JSON.stringify(state))).toEqual({ ok: false, problems: [rule] });
      const limits = { scope: 'global', limits: null, by: 'ops', reason };
      expect(parseContract(RiskLimitsChange, JSON.stringify(limits))).toEqual({ ok: false, problems: [rule] });
    }
    for (const by of ['a\u202eb', 'a\u200b', 'a\u2028']) {
      expect(parseContract(KillSwitchRequest, JSON.stringify({ by, reason: 'incident' })).ok).toBe(false);
    }
    expect(parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops één', reason: 'venue down — α 42%' })).ok).toBe(
      true,
    );
  });

  it('refuses a lone UTF-16 surrogate in text read back by people, with the rule of the other invisible text (it was taken, then printed escaped)', () => {
    // JSON.stringify writes a lone surrogate as \\ud800: what a client sends, parsed back to the lone code unit
    const lone = ['a\ud800', '\udc00b', 'a\udfffb', '\ud800'];
    const requesterRule = 'requester must be 1–128 characters without control or format characters, not only spaces';
    const reasonRule = 'reason must say why: 1-1024 characters without control or format characters, not only spaces';
    const withdrawal = {
      idempotencyKey: 'k',
      kind: 'fiat',
      accountGroupUuid: '9a000000-0000-4000-8000-000000000001',
      ccy: 'USD',
      amount: '1',
    };
    for (const text of lone) {
      expect(parseContract(StreamRequest, JSON.stringify({ ...valid, requester: text }))).toEqual({
        ok: false,
        problems: [requesterRule],
      });
      expect(parseContract(StreamRelease, JSON.stringify({ subject: 'gw.v1.price.x', requester: text }))).toEqual({
        ok: false,
        problems: [requesterRule],
      });
      expect(parseContract(KillSwitchRequest, JSON.stringify({ by: 'ops', reason: text }))).toEqual({
        ok: false,
        problems: [reasonRule],
      });
      const state = { scope: 'strategy', id: 's1', state: 'HALTED', by: text, reason: 'incident' };
      expect(parseContract(TradingStateChange, JSON.stringify(state)).ok).toBe(false);
      expect(parseContract(WithdrawalSubmitRequest, JSON.stringify({ ...withdrawal, ccy: text }))).toEqual({
        ok: false,
        problems: ['ccy must be a currency code: 1-16 characters without white space, control or format characters'],
      });
      expect(parseContract(WithdrawalSubmitRequest, JSON.stringify({ ...withdrawal, clientComment: text }))).toEqual({
        ok: false,
        problems: ['clientComment must be text without control or format characters'],
      });
    }
    // a surrogate pair is one character (an emoji), visible: taken
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, requester: 'desk \ud83d\ude00' })).ok).toBe(true);
    expect(
      parseContract(KillSwitchRequest, JSON.stringify({ by: '\ud83d\ude00', reason: 'why \ud83d\ude00' })).ok,
    ).toBe(true);
    expect(
      parseContract(WithdrawalSubmitRequest, JSON.stringify({ ...withdrawal, clientComment: 'rent \ud83d\ude00' })).ok,
    ).toBe(true);
  });

  it('refuses a lone UTF-16 surrogate in every identifier and text field, naming the field (it reached KV keys, subject tokens and the venue as U+FFFD)', () => {
    // what a client sends as "a\ud800": JSON.stringify writes the escape, JSON.parse gives back the half character
    const rule = (field: string) =>
      `${field} must not hold a lone UTF-16 surrogate (half a character, such as \\ud800: it cannot be sent as UTF-8)`;
    const command = { clientRequestId: 'ord-1', quoteId: 'q', side: 'BUY' };
    const state = { scope: 'accountGroup', id: 'g1', state: 'HALTED', by: 'ops', reason: 'incident' };
    const withdrawal = {
      idempotencyKey: 'k',
      kind: 'fiat',
      accountGroupUuid: '9a000000-0000-4000-8000-000000000001',
      ccy: 'USD',
      amount: '1',
    };
    const cases: [new () => object, object, string][] = [
      [StreamRequest, { ...valid, currency: 'BT\ud800' }, rule('currency')],
      [StreamRequest, { ...valid, tenor: 'T\udc00' }, rule('tenor')],
      [StreamRequest, { ...valid, accountGroup: '\ud800g' }, rule('accountGroup')],
      [StreamRelease, { subject: 'gw.v1.price.\ud800', requester: 's1' }, rule('subject')],
      [OrderCommand, { ...command, instrument: 'BTC.US\ud800' }, rule('instrument')],
      [
        OrderCommand,
        { ...command, quoteId: 'q\ud800' },
        'quoteId must be 1–512 characters without control or format characters or lone surrogates',
      ],
      [
        OrderCommand,
        { ...command, clientRequestId: 'ord\udfff' },
        'clientRequestId must be 1–64 characters without /, ., *, >, whitespace, control characters or lone surrogates',
      ],
      [TradingStateChange, { ...state, id: 'g\ud800' }, rule('id')],
      [RiskLimitsChange, { ...state, state: undefined, limits: null, id: 'g\ud800' }, rule('id')],
      [RiskScopeQuery, { scope: 'accountGroup', id: '\udc00' }, rule('id')],
      [BalanceQuery, { accountGroupUuid: 'g\ud800' }, rule('accountGroupUuid')],
      // a ccy filter is a currency code (the withdrawal's rule): that rule refuses half a character too
      [BalanceQuery, { ccy: 'US\ud800' }, CCY_RULE],
      [TransactionListQuery, { ccy: 'US\ud800' }, CCY_RULE],
      [TradeQuery, { clientRef: 'c\ud800' }, rule('clientRef')],
      [TradeQuery, { tradeRef: 't\ud800' }, rule('tradeRef')],
      [TransactionListQuery, { tradeId: 't\ud800' }, rule('tradeId')],
      [StateQuery, { accountGroupUuid: 'g\ud800' }, rule('accountGroupUuid')],
      [TransactionGetRequest, { uuid: 'u\ud800' }, rule('uuid')],
      // an account group is a UUID (spec-gaps WD10): its own rule refuses half a character too
      [WithdrawalSubmitRequest, { ...withdrawal, accountGroupUuid: 'g\ud800' }, ACCOUNT_GROUP_UUID_RULE],
      [WithdrawalSubmitRequest, { ...withdrawal, bankAccountUuid: 'b\ud800' }, venueReferenceRule('bankAccountUuid')],
    ];
    for (const [Class, payload, problem] of cases) {
      expect({ Class: Class.name, parsed: parseContract(Class, JSON.stringify(payload)) }).toEqual({
        Class: Class.name,
        parsed: { ok: false, problems: [problem] },
      });
    }
    // in a nested value (a list's item, a map's key) the field holding it is named
    const limits = { maxNotionalPerOrder: { USD: '1' }, allowedInstruments: ['BTC.USD'] };
    const change = { scope: 'global', by: 'ops', reason: 'why' };
    expect(parseContract(RiskLimitsChange, JSON.stringify({ ...change, limits })).ok).toBe(true);
    for (const bad of [
      { ...limits, allowedInstruments: ['BTC.US\ud800'] },
      { ...limits, maxNotionalPerOrder: { ['US\ud800']: '1' } },
    ]) {
      expect(parseContract(RiskLimitsChange, JSON.stringify({ ...change, limits: bad })).ok).toBe(false);
    }
    // an unknown field's name holding one is named escaped, never as itself
    expect(parseContract(BalanceQuery, JSON.stringify({ ['x\ud800']: 1 }))).toEqual({
      ok: false,
      problems: ['unknown field "x\\ud800"'],
    });
    // a pair is one character (an emoji): taken in free text
    expect(parseContract(TradeQuery, JSON.stringify({ clientRef: 'c\ud83d\ude00' })).ok).toBe(true);
  });

  it('refuses non-JSON, arrays and numbers as quantity', () => {
    expect(parseContract(StreamRequest, 'not json')).toEqual({ ok: false, problems: ['payload is not JSON'] });
    expect(parseContract(StreamRequest, '[1]')).toEqual({ ok: false, problems: ['payload must be a JSON object'] });
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, quantity: 0.5 })).ok).toBe(false);
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, quantity: '0' })).ok).toBe(false);
    // one spelling per size: 00.5 would be another stream than 0.5
    expect(parseContract(StreamRequest, JSON.stringify({ ...valid, quantity: '00.5' }))).toEqual({
      ok: false,
      problems: [
        'quantity must be a plain decimal without leading zeros, at most 20 digits before the point and 8 after',
      ],
    });
    const huge = parseContract(StreamRequest, JSON.stringify({ ...valid, quantity: '1'.repeat(400) }));
    expect(huge.ok ? [] : huge.problems).toContain(
      'quantity must be a plain decimal without leading zeros, at most 20 digits before the point and 8 after',
    );
  });

  it('validates order commands with the venue identifier rules', () => {
    const ok = parseContract(OrderCommand, JSON.stringify({ clientRequestId: 'ord-1', quoteId: 'q', side: 'BUY' }));
    expect(ok.ok).toBe(true);
    for (const clientRequestId of ['', 'a/b', 'has space', 'x'.repeat(65), 'ctl\u0001']) {
      expect(parseContract(OrderCommand, JSON.stringify({ clientRequestId, quoteId: 'q', side: 'BUY' })).ok).toBe(
        false,
      );
    }
    expect(parseContract(OrderCommand, JSON.stringify({ clientRequestId: 'a', quoteId: 'q', side: 'HOLD' })).ok).toBe(
      false,
    );
  });

  it('an order command never carries control or bidi characters to the venue (quoteId, instrument)', () => {
    const command = (fields: object) =>
      parseContract(OrderCommand, JSON.stringify({ clientRequestId: 'ord-1', quoteId: 'q', side: 'BUY', ...fields }));
    for (const quoteId of ['q\u0000\n"', 'q\u202e', '', 'q'.repeat(513)]) {
      expect(command({ quoteId })).toEqual({
        ok: false,
        problems: ['quoteId must be 1–512 characters without control or format characters or lone surrogates'],
      });
    }
    expect(command({ quoteId: 'q'.repeat(512), instrument: 'BTC.USD' }).ok).toBe(true);
    expect(command({ instrument: 'BTC.USD\u202e' })).toEqual({
      ok: false,
      problems: ['instrument must not hold control or format characters'],
    });
  });

  it('deduplicates outcomes by clientRequestId and status', () => {
    expect(orderOutcomeMsgId({ clientRequestId: 'ord-1', status: 'SUCCESS' })).toBe('ord-1:SUCCESS');
  });
});

describe('account queries: a bad date or an unknown field is refused, never answered as an empty or whole list', () => {
  const problems = (Class: new () => object, body: unknown): string[] => {
    const parsed = parseContract(Class, JSON.stringify(body));
    return parsed.ok ? [] : parsed.problems;
  };

  it.each([
    'garbage',
    '2026-13-45',
    '2026-02-30',
    '2026-02-29',
    '2026-1-1',
    '2026-01-01T24:00:00Z',
    '2026-01-01 10:00',
    '',
  ])('trade query from/to %p: INVALID_REQUEST naming the field, not the value', (bad) => {
    for (const field of ['from', 'to']) {
      const found = problems(TradeQuery, { [field]: bad });
      expect(found).toEqual([expect.stringMatching(new RegExp(`^${field} must be an ISO 8601 date`))]);
      if (bad.length > 3) expect(found.join()).not.toContain(bad);
    }
  });

  it.each(['a\u0000b', '\u202EUSD', 'US D', 'U\u200bSD', 'x\ud800', '', 'X'.repeat(17), 'USD\n'])(
    'a ccy filter that is no currency code (case %#, the withdrawal rule): INVALID_REQUEST naming the field, not the value',
    (bad) => {
      for (const Class of [BalanceQuery, TransactionListQuery]) {
        const found = problems(Class, { ccy: bad });
        expect(found).toEqual([expect.stringMatching(/^ccy must be a currency code: 1-16 characters/)]);
        if (bad.length > 0) expect(found.join()).not.toContain(bad);
      }
    },
  );

  it('a ccy filter that is a currency code is taken as it is (balance, transaction-list)', () => {
    for (const ccy of ['USD', 'usdt', 'BTC', 'X'.repeat(16), 'ÉUR', 'USDC.e']) {
      expect(parseContract(BalanceQuery, JSON.stringify({ ccy }))).toMatchObject({ ok: true, value: { ccy } });
      expect(parseContract(TransactionListQuery, JSON.stringify({ ccy }))).toMatchObject({ ok: true, value: { ccy } });
    }
  });

  it('trade query from/to: real days and times, with or without a zone, are accepted', () => {
    for (const good of [
      '2026-01-31',
      '2024-02-29',
      '2026-01-31T12:00Z',
      '2026-01-31T12:00:59.123Z',
      '2026-01-31T23:59:59+02:00',
      '2026-01-31T00:00:00',
    ]) {
      expect(isIsoInstant(good)).toBe(true);
      expect(parseContract(TradeQuery, JSON.stringify({ from: good, to: good })).ok).toBe(true);
    }
    expect(isIsoInstant(`2026-01-31T00:00:00.${'1'.repeat(40)}Z`)).toBe(false);
    expect(isIsoInstant(20260131)).toBe(false);
  });

  it('a misspelt filter is named and refused (balance, trade, transaction-list, state, transaction.get, withdrawal get/cancel/list)', () => {
    expect(problems(TradeQuery, { sate: 'SETTLED' })).toEqual(['unknown field "sate"']);
    expect(problems(BalanceQuery, { currency: 'USD' })).toEqual(['unknown field "currency"']);
    expect(problems(TransactionListQuery, { tradeID: 'x' })).toEqual(['unknown field "tradeID"']);
    expect(problems(StateQuery, { group: 'g' })).toEqual(['unknown field "group"']);
    expect(problems(TransactionGetRequest, { uuid: 'u', extra: 1 })).toEqual(['unknown field "extra"']);
    expect(problems(WithdrawalGetRequest, { requestID: 'r' })).toEqual(['unknown field "requestID"']);
    expect(problems(WithdrawalCancelRequest, { requestId: 'r1', why: 'x' })).toEqual(['unknown field "why"']);
    expect(problems(WithdrawalListRequest, { kinds: 'fiat' })).toEqual(['unknown field "kinds"']);
    // every declared filter is still accepted
    expect(
      parseContract(
        TradeQuery,
        JSON.stringify({
          accountGroupUuid: 'g',
          state: 'SETTLED',
          side: 'BUY',
          tradeClass: 'OTC',
          clientRef: 'c',
          tradeRef: 't',
          from: '2026-01-01',
          to: '2026-01-02',
          limit: 10,
          offset: 0,
        }),
      ).ok,
    ).toBe(true);
    expect(parseContract(BalanceQuery, JSON.stringify({ accountGroupUuid: 'g', ccy: 'USD', nonZero: true })).ok).toBe(
      true,
    );
  });

  it('trade and transaction list before: a cursor (the `next` of a reply) is accepted, anything else refused without echoing it', () => {
    const cursor = listCursor({ at: 1_763_800_000_123, uuid: 'a:b c' });
    expect(parseListCursor(cursor)).toEqual({ at: 1_763_800_000_123, uuid: 'a:b c' });
    expect(parseListCursor(listCursor({ at: 0, uuid: 'u' }))).toEqual({ at: 0, uuid: 'u' });
    expect(parseListCursor(listCursor({ at: -5, uuid: 'u' }))).toEqual({ at: -5, uuid: 'u' });
    const bad = ['garbage', '12:', ':u', '1.5:u', `1:${'u'.repeat(1025)}`, '99999999999999999:u', 12, null, ''];
    for (const [query, name] of [
      [TradeQuery, 'trade query'],
      [TransactionListQuery, 'transaction list query'],
    ] as const) {
      expect(parseContract(query, JSON.stringify({ before: cursor, limit: 1000 })).ok).toBe(true);
      for (const value of bad) {
        expect(problems(query, { before: value })).toEqual([`before must be the \`next\` of an earlier ${name} reply`]);
      }
    }
  });

  it('declaredFields: the properties a contract class declares (its validated fields), one set per class', () => {
    expect([...declaredFields(StateQuery)]).toEqual(['accountGroupUuid']);
    expect(new Set(declaredFields(BalanceQuery))).toEqual(new Set(['accountGroupUuid', 'ccy', 'nonZero']));
    expect(declaredFields(PairQuery).size).toBe(0);
    expect(declaredFields(StateQuery)).toBe(declaredFields(StateQuery));
  });

  it('the pair query takes no filter: {} is read, any field is unknown, a body not a JSON object is refused', () => {
    expect(parseContract(PairQuery, '{}')).toEqual({ ok: true, value: new PairQuery() });
    expect(problems(PairQuery, { instrument: 'BTC.USD' })).toEqual(['unknown field "instrument"']);
    expect(parseContract(PairQuery, 'pairs please')).toEqual({ ok: false, problems: ['payload is not JSON'] });
    expect(parseContract(PairQuery, '[]')).toEqual({ ok: false, problems: ['payload must be a JSON object'] });
  });

  it('unknown fields are named bounded: at most ten, each cut, never the whole request text', () => {
    const long = 'k'.repeat(100_000);
    const body: Record<string, number> = { [long]: 1, __proto__x: 2 };
    for (let i = 0; i < 20; i += 1) body[`f${i}`] = i;
    const found = problems(TradeQuery, body);
    expect(found).toHaveLength(11);
    expect(found[0]).toBe(`unknown field "${'k'.repeat(64)}…"`);
    expect(found.at(-1)).toBe('and 12 more unknown fields');
    expect(found.join('; ').length).toBeLessThan(1_000);
  });

  it('contracts not marked (commands between the apps) still ignore unknown fields', () => {
    expect(
      parseContract(OrderCommand, JSON.stringify({ clientRequestId: 'ord-1', quoteId: 'q', side: 'BUY', later: 1 })).ok,
    ).toBe(true);
  });
});

describe('error replies', () => {
  it('never carry an unbounded value: code and message are cut, saying how much', () => {
    const reply = errorReply('X'.repeat(1_000), `bad subject ${'y'.repeat(100_000)}`);
    expect(reply.error.code.length).toBeLessThan(100);
    expect(reply.error.message.length).toBeLessThan(MAX_ERROR_MESSAGE + 40);
    expect(reply.error.message).toMatch(/^bad subject y+…\(99500 more characters\)$/);
    expect(boundedText('short')).toBe('short');
  });
});

describe('topics: the typed map subject → payload', () => {
  it('names each subject with its bounded metric label', () => {
    const topics = topicsOf(new Subjects('gw.v1', 'acct1'));
    expect(topics.orderOutcome('ord-1')).toEqual({ subject: 'gw.v1.acct1.order.outcome.ord-1', kind: 'order.outcome' });
    expect(topics.orderCommand).toEqual({ subject: 'gw.v1.acct1.order.command', kind: 'order.command' });
    expect(topics.connectorStatus.subject).toBe('gw.v1.acct1.connector.status');
    const price = topics.price({
      accountGroup: 'g',
      instrument: 'BTC.USD',
      tenor: 'T',
      currency: 'BTC',
      quantity: '0.50',
    });
    expect(price).toEqual({ subject: 'gw.v1.price.g.BTC.USD.T.BTC.0_5', kind: 'price' });
    // compile-time: a payload of another subject's type is refused
    const check = (topic: Topic<OrderOutcome>): Topic<OrderOutcome> => topic;
    check(topics.orderOutcome('x'));
    // @ts-expect-error a connector status is not an order outcome
    check(topics.connectorStatus);
  });
});

describe('isDecimalString: what the contracts accept, the gateway parses', () => {
  it('agrees with parseDecimal (libs/venue-api) on edge cases and random strings of the alphabet', () => {
    const cases = ['5.', '.5', '1e2000', '1e1000', '1e1001', '0.0001e-996', '0.0001e-997', '12.5', '-3', '1e+5'];
    cases.push('00012', '0e99999', '0e9999999', '100000.', '1.e5', '', '-', 'e5', '1e', '9'.repeat(201));
    const alphabet = '0123456789.eE+-';
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i += 1) {
      const length = 1 + Math.floor(random() * 8);
      cases.push(Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    }
    const disagree = cases.filter((text) => isDecimalString(text) !== isParsableDecimal(text));
    expect(disagree).toEqual([]);
  });
});

describe("withdrawal states: forward only; the venue's evidence overturns NOT_FOUND and REJECTED", () => {
  const venueStates = ['PENDING_APPROVAL', 'PENDING', 'PROCESSED', 'CANCELLED', 'FAILED'] as const;

  it('REJECTED moves only to a state the venue shows (a 401 it carried out anyway); never back to ours', () => {
    for (const next of WITHDRAWAL_STATES) {
      expect([next, canFollowWithdrawalState('REJECTED', next)]).toEqual([
        next,
        (venueStates as readonly string[]).includes(next),
      ]);
    }
  });

  it('the other final states stay final; open ones only move forward', () => {
    for (const final of ['PROCESSED', 'CANCELLED', 'FAILED'] as const) {
      expect(WITHDRAWAL_STATES.filter((next) => canFollowWithdrawalState(final, next))).toEqual([]);
    }
    expect(canFollowWithdrawalState('PENDING', 'PENDING_APPROVAL')).toBe(false);
    expect(canFollowWithdrawalState('PENDING_APPROVAL', 'REJECTED')).toBe(true);
  });
});

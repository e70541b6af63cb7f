import { describe, expect, it } from '@jest/globals';
import type { ConnectorStatus, PriceMessage } from '#contracts';
import { priceUpdate } from '../price-update.js';
import { priceLine, priceTable, pricesArgs } from './prices-command.js';
import { accountStreams, connectorLines, streamLines } from './status-command.js';
import type { StreamSummary } from '../inspect.js';
import { paint, table, visibleLength } from './terminal.js';

const plain = { colour: false };
const colour = { colour: true };
const price: PriceMessage = {
  v: 1,
  status: 'live',
  accountGroup: 'g',
  instrument: 'BTC.USD',
  tenor: 'T',
  currency: 'BTC',
  quantity: '1',
  quoteId: 'quote-0123456789abcdef',
  venueTimestamp: 10_000,
  quoteExpiresAt: 610_000,
  bid: { price: '64238.298', quantity: '1', quoteAmount: '64238.298' },
  offer: { price: '64302.57', quantity: '1', quoteAmount: '64302.57' },
};

describe('gw rendering', () => {
  it('tables align on visible width, colour codes only with colour', () => {
    expect(paint(plain, 'green', 'live')).toBe('live');
    expect(paint(colour, 'green', 'live')).toBe('\x1b[32mlive\x1b[0m');
    expect(visibleLength(paint(colour, 'red', 'abc'))).toBe(3);
    expect(
      table([
        ['A', 'B'],
        [paint(colour, 'red', 'long'), 'x'],
      ]),
    ).toEqual(['A     B', '\x1b[31mlong\x1b[0m  x']);
  });

  it('the price table: one row per stream, waiting until its first price', () => {
    const update = priceUpdate('s', price, 12_000, false);
    const lines = priceTable(
      [
        { label: 'BTC.USD 1 BTC T', update, count: 3 },
        { label: 'ETH.USD 10 ETH T', update: undefined, count: 0 },
      ],
      12_000,
      plain,
    );
    expect(lines[0]).toMatch(/^STREAM\s+STATUS\s+BID\s+OFFER\s+QUOTE\s+AGE\s+EXPIRES IN\s+UPDATES$/);
    expect(lines[1]).toMatch(/^BTC\.USD 1 BTC T\s+live\s+64238\.298\s+64302\.57\s+quote-01234…\s+2s\s+598s\s+3$/);
    expect(lines[2]).toMatch(/^ETH\.USD 10 ETH T\s+waiting\s+0$/);
  });

  it('one plain line per update in a pipe, stale/expired/stopped said as such', () => {
    expect(priceLine('BTC.USD 1 BTC T', priceUpdate('s', price, 12_000, true))).toBe(
      '1970-01-01T00:00:12.000Z BTC.USD 1 BTC T live bid 64238.298 offer 64302.57 quote quote-0123456789abcdef (last value)',
    );
    expect(priceLine('x', priceUpdate('s', price, 700_000, false))).toContain(' x expired ');
    expect(priceLine('x', priceUpdate('s', { ...price, status: 'stale' }, 12_000, false))).toContain(' x stale ');
  });

  it('arguments: streams in fours, decimals checked, bad usage names the fix', () => {
    expect(pricesArgs(['BTC.USD', '0.5', 'BTC', 'T', 'ETH.USD', '10', 'ETH', 'T', '--count', '3']).parsed).toEqual({
      streams: [
        { instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T' },
        { instrument: 'ETH.USD', quantity: '10', currency: 'ETH', tenor: 'T' },
      ],
      count: 3,
    });
    expect(() => pricesArgs(['BTC.USD', '1', 'BTC'])).toThrow(/<instrument> <quantity> <currency> <tenor>/);
    expect(() => pricesArgs(['BTCUSD', '1', 'BTC', 'T'])).toThrow(/BASE\.QUOTE/);
    expect(() => pricesArgs(['BTC.USD', '1e3', 'BTC', 'T'])).toThrow(/plain decimal/);
    expect(() => pricesArgs(['BTC.USD', '1', 'BTC', 'T', '--count', '0'])).toThrow(/--count/);
    expect(() => pricesArgs(['BTC.USD', '1', 'BTC', 'T', '--bogus'])).toThrow(/bogus/);
  });

  it('status: the session, or what to do when no connector runs', () => {
    const status: ConnectorStatus = {
      v: 1,
      account: 'a',
      sessionState: 'open',
      since: 0,
      reconnects: 2,
      subscriptions: { live: 1, stale: 0, pending: 0 },
      lastPriceAgeMs: 1_000,
      publishedAt: 5_000,
    };
    expect(connectorLines('a', status, 7_000, plain)).toEqual([
      'connector (account a): session open since 1970-01-01T00:00:00.000Z, 2 reconnects',
      '  price streams: 1 live, 0 stale, 0 pending; last price 1s ago; status 2s old',
    ]);
    expect(connectorLines('a', { ...status, orderQueuePaceMs: 300 }, 7_000, plain)[2]).toBe(
      '  orders: one leaves every 300 ms now (an order with N queued ahead waits ≈ (N + 1) × that)',
    );
    expect(connectorLines('a', undefined, 0, plain)[1]).toContain('npm start');
  });

  it('status of a session not open: for how long and why, not the age of its latest backoff (outside tester)', () => {
    const down: ConnectorStatus = {
      v: 1,
      account: 'a',
      sessionState: 'backoff',
      since: 10_000_000, // the latest backoff began: moves at every retry
      reconnects: 0,
      subscriptions: { live: 0, stale: 0, pending: 1 },
      publishedAt: 10_000_000,
      notOpenSince: 10_000_000 - 192_000,
      everOpen: false,
      lastFailure: { code: 'token-refused', reason: 'HTTP 401', at: 10_000_000 - 4_000 },
    };
    expect(connectorLines('a', down, 10_000_000, plain)[0]).toBe(
      'connector (account a): session backoff, down for 3m12s, never open since the connector started ' +
        '(last failure 4s ago: token refused, HTTP 401), 0 reconnects',
    );
    const dropped = { ...down, everOpen: true, notOpenSince: 10_000_000 - 9_000, lastFailure: undefined };
    expect(connectorLines('a', dropped, 10_000_000, plain)[0]).toBe(
      'connector (account a): session backoff, down for 9s (since 1970-01-01T02:46:31.000Z), 0 reconnects',
    );
    const venueDown = {
      ...dropped,
      notOpenSince: 10_000_000 - 3_723_000,
      lastFailure: { code: 'token-failed' as const, reason: 'venue unreachable', at: 10_000_000 },
    };
    expect(connectorLines('a', venueDown, 10_000_000, plain)[0]).toBe(
      'connector (account a): session backoff, down for 1h02m03s (since 1970-01-01T01:44:37.000Z; ' +
        'last failure 0s ago: token fetch failed, venue unreachable), 0 reconnects',
    );
    // a connector older than these fields: its state and since, as before
    const { notOpenSince: _n, everOpen: _e, lastFailure: _l, ...older } = down;
    expect(connectorLines('a', older, 10_000_000, plain)[0]).toBe(
      'connector (account a): session backoff since 1970-01-01T02:46:40.000Z, 0 reconnects',
    );
  });

  it('streams: consumers under their stream with their lag', () => {
    const lines = streamLines(
      [
        {
          name: 'GW_ORDER_COMMANDS_a',
          subjects: ['x'],
          storage: 'file',
          retention: 'workqueue',
          messages: 2,
          bytes: 300,
          firstSeq: 1,
          lastSeq: 2,
          consumers: [{ name: 'connector', durable: true, pending: 2, ackPending: 1, redelivered: 0, waiting: 1 }],
        },
      ],
      plain,
    );
    expect(lines[1]).toMatch(/^GW_ORDER_COMMANDS_a\s+file\/workqueue\s+2\s+300$/);
    expect(lines[2]).toMatch(/^ {2}connector\s+2\s+1\s+0$/);
    expect(streamLines([], plain)[0]).toContain('no gateway streams');
  });

  it("gw status --account: that account's streams only, never another's with a longer or shorter name", () => {
    const stream = (name: string): StreamSummary => ({
      name,
      subjects: [],
      storage: 'file',
      retention: 'limits',
      messages: 0,
      bytes: 0,
      firstSeq: 0,
      lastSeq: 0,
      consumers: [],
    });
    const names = [
      'GW_ORDER_COMMANDS_default',
      'GW_ACCT_TRANSACTIONS_default',
      'GW_PRICES_prod_default',
      'GW_PRICES_nobody',
      'GW_PRICES_acct_1',
      'GW_ORDER_COMMANDS_prod-2',
    ];
    const of = (account: string) => accountStreams(names.map(stream), account).map((s) => s.name);
    expect(of('default')).toEqual(['GW_ORDER_COMMANDS_default', 'GW_ACCT_TRANSACTIONS_default']);
    expect(of('prod_default')).toEqual(['GW_PRICES_prod_default']);
    expect(of('nobody')).toEqual(['GW_PRICES_nobody']);
    expect(of('acct$1')).toEqual(['GW_PRICES_acct_1']); // named as the apps name it: [^A-Za-z0-9_-] as _
    expect(of('prod-2')).toEqual(['GW_ORDER_COMMANDS_prod-2']);
    expect(of('other')).toEqual([]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import type { OrderView, TradingStatesReply, TransactionLeg, WithdrawalView } from '#contracts';
import { priceUpdate } from '../price-update.js';
import type { StreamSummary } from '../inspect.js';
import type { TradeRecord } from '../account.js';
import { balancesTable, tradesTable, transactionsTable } from './account-command.js';
import { outcomeLines, ordersTable } from './order-command.js';
import { priceLine, priceTable } from './prices-command.js';
import { streamLines } from './status-command.js';
import { paint, printable, processTerminal } from './terminal.js';
import { tradingLines } from './trading-command.js';
import { withdrawalLines, withdrawalListTable } from './withdrawals-command.js';

/**
 * Text the CLI prints from data (an audit reason, a venue's name or message) may hold anything: the security
 * tester stored a reason of `ESC[2K`, CR and a made-up line, and `gw trading` showed a HALTED strategy as
 * `global ACTIVE (all clear)`. Every control, format (bidi) and line-separator character from data is printed as
 * `\uXXXX`; the CLI's own colour codes are the only escape sequences it writes.
 */
const HOSTILE =
  'x\u001b[2K\r\u001b[32mglobal ACTIVE (all clear)\u001b[0m\nstrategy t3ansi ACTIVE\u0007\u0085\u202e\u2028';
const colour = { colour: true };

/** Every escape sequence and unprintable character in `lines`, besides paint's own colour codes. */
function unprintable(lines: string[]): string[] {
  // eslint-disable-next-line no-control-regex
  const own = /\x1b\[(?:0|1|31|32|33|34|90)m/g;
  return lines.flatMap((line) => [...line.replace(own, '').matchAll(/[\p{Cc}\p{Cf}\u2028\u2029]/gu)].map((m) => m[0]));
}

describe('gw prints data with its control and bidi characters escaped', () => {
  it('printable: controls, C1, format and line separators as \\uXXXX, everything else as is', () => {
    expect(printable('a\u0000b\u001b[2K\r\n\t\u0085\u200b\u202e\u2028 é α 1')).toBe(
      'a\\u0000b\\u001b[2K\\u000d\\u000a\\u0009\\u0085\\u200b\\u202e\\u2028 é α 1',
    );
    expect(printable({ a: ['x\ny', 5, null], b: { c: '\u001b' } })).toEqual({
      a: ['x\\u000ay', 5, null],
      b: { c: '\\u001b' },
    });
  });

  it('gw trading: a hostile reason cannot erase or fake a line (security tester)', () => {
    const states: TradingStatesReply = {
      ok: true,
      readable: true,
      global: { scope: 'global', state: 'ACTIVE', by: 'ops', reason: 'r', at: 'T', revision: 1 },
      accountGroups: [],
      strategies: [
        { scope: 'strategy', id: 't3ansi', state: 'HALTED', by: 't3\u202e', reason: HOSTILE, at: 'T', revision: 2 },
      ],
    };
    const lines = tradingLines(states, colour);
    expect(lines).toHaveLength(2);
    // eslint-disable-next-line no-control-regex
    expect(lines[1]).toMatch(/^ {2}strategy t3ansi: \x1b\[31mHALTED\x1b\[0m — by t3\\u202e at T: x\\u001b\[2K\\u000d/);
    expect(unprintable(lines)).toEqual([]);
  });

  it('orders, withdrawals, balances, trades, transactions, prices and streams: no raw control from data', () => {
    const order: OrderView = {
      v: 1,
      orderId: 'o\u001b[2J',
      clientRequestId: 'c',
      idempotencyKey: 'k',
      strategyId: 's',
      accountGroup: 'g',
      side: 'BUY',
      instrument: 'BTC.USD',
      quoteId: 'q',
      state: 'FAILED',
      status: 'FAILED\r' as OrderView['status'],
      final: true,
      code: 'RFS\u0007',
      message: HOSTILE,
      acceptedAt: 0,
      updatedAt: 0,
      quoteExpiresAt: 0,
    };
    const withdrawal: WithdrawalView = {
      requestId: 'r',
      idempotencyKey: 'k',
      kind: 'fiat',
      state: 'REJECTED',
      accountGroupUuid: 'g',
      ccy: 'U\u0000SD',
      amount: '1',
      rejection: { code: 'BANK_ACCOUNT_UNUSABLE', message: HOSTILE },
      createdAt: 0,
      updatedAt: 0,
    };
    const trade = { uuid: 'u', tradeSide: 'BUY', state: 'SETTLED', clientRef: HOSTILE } as unknown as TradeRecord;
    const leg: TransactionLeg = {
      uuid: 't\u202e',
      transactionClass: 'CASH',
      transactionType: 'DEPOSIT\n',
      transactionState: 'PROCESSED',
      ccy: 'U\u0000SD',
      amount: '1',
    };
    const stream: StreamSummary = {
      name: 'GW_X\u001b[2K',
      storage: 'file',
      retention: 'limits',
      messages: 1,
      bytes: 1,
      consumers: [{ name: 'c\r', durable: true, pending: 0, ackPending: 0, redelivered: 0 }],
    } as StreamSummary;
    const update = priceUpdate(
      's',
      {
        v: 1,
        status: 'stopped',
        accountGroup: 'g',
        instrument: 'BTC.USD',
        tenor: 'T',
        currency: 'BTC',
        quantity: '1',
        code: 'E\u001b[2K',
        quoteId: 'q\u202e',
      },
      0,
      false,
    );
    const lines = [
      ...ordersTable([order], colour),
      ...outcomeLines(order, colour),
      ...withdrawalLines(withdrawal, colour),
      ...withdrawalListTable([{ kind: 'fiat', venueUuid: 'v\n', state: 'PENDING', ccy: 'U\u0000SD' }], false),
      ...balancesTable([
        {
          accountGroupUuid: 'g',
          accountGroupName: HOSTILE,
          ccy: 'USD',
          balance: '1',
          available: '1',
          brokerageAvailable: '1',
        },
      ]),
      ...tradesTable([trade], colour),
      ...transactionsTable([leg], colour),
      ...streamLines([stream], colour),
      ...priceTable([{ label: 'BTC.USD 1 BTC T', update, count: 1 }], 0, colour),
      priceLine('BTC.USD 1 BTC T', update),
    ];
    expect(unprintable(lines)).toEqual([]);
    expect(lines.join('\n')).toContain('U\\u0000SD');
  });

  it('the terminal itself writes no control or bidi character but its own colour codes and line ends', () => {
    const written: string[] = [];
    const sink = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          written.push(chunk.toString());
          done();
        },
      }),
      { isTTY: true },
    ) as unknown as NodeJS.WriteStream;
    const previous = process.env['NO_COLOR'];
    delete process.env['NO_COLOR'];
    try {
      const terminal = processTerminal(sink, sink);
      terminal.line(`state ${paint(terminal, 'red', 'HALTED')}: ${HOSTILE}`);
      terminal.error(`gw: ${HOSTILE}`);
      terminal.line(JSON.stringify({ reason: HOSTILE }));
      terminal.redraw([HOSTILE]);
    } finally {
      if (previous !== undefined) process.env['NO_COLOR'] = previous;
    }
    const [line = '', error = '', json = ''] = written;
    // the terminal keeps its own colour codes (text given to it raw may recolour; the rendering functions escape
    // data with `printable` before they paint): nothing else acts on the terminal
    expect(line.startsWith('state \x1b[31mHALTED\x1b[0m: x\\u001b[2K\\u000d\x1b[32mglobal')).toBe(true);
    expect(line.endsWith('\\u2028\n')).toBe(true);
    expect(error).toMatch(/^gw: x\\u001b\[2K\\u000d/);
    // the JSON line stays JSON with the same value: C1, bidi and U+2028 escaped inside its strings
    expect(JSON.parse(json)).toEqual({ reason: HOSTILE });
    // eslint-disable-next-line no-control-regex
    const drawn = (written[3] ?? '').replace(/^\x1b\[2K/, '');
    expect(unprintable([drawn.replace(/\n$/, '')])).toEqual([]);
    expect(unprintable(written.map((w) => w.replace(/\n$/, '')).slice(0, 3))).toEqual([]);
  });
});

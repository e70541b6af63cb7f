import { describe, expect, it } from '@jest/globals';
import type { OrderView, TradingStatesReply, WithdrawalView } from '#contracts';
import { balancesTable, freshnessLine, transactionsTable } from './account-command.js';
import { orderArgs, ordersTable, outcomeLines } from './order-command.js';
import { tradingLines } from './trading-command.js';
import { submitExitCode, withdrawalLines } from './withdrawals-command.js';

const plain = { colour: false };
const colour = { colour: true };
const order: OrderView = {
  v: 1,
  orderId: 'o-1',
  clientRequestId: 'c-1',
  idempotencyKey: 'k-1',
  strategyId: 'manual',
  accountGroup: 'g',
  side: 'BUY',
  instrument: 'BTC.USD',
  quoteId: 'q-1',
  state: 'SUCCESS',
  status: 'SUCCESS',
  final: true,
  evidence: 'reply',
  fill: {
    price: '64302.57',
    baseCurrency: 'BTC',
    quoteCurrency: 'USD',
    baseAmount: '0.01',
    quoteAmount: '643.0257',
    tradeRef: 'T-9',
    source: 'outcome',
  },
  acceptedAt: 0,
  updatedAt: 0,
  quoteExpiresAt: 600_000,
};

describe('gw order rendering', () => {
  it('a success: the fill with exact amounts, green only with colour', () => {
    expect(outcomeLines(order, plain)).toEqual([
      'outcome: SUCCESS (from reply)',
      '  bought 0.01 BTC at 64302.57 USD, paid 643.0257 USD, trade T-9',
    ]);
    // the venue's SUCCESS carries an empty code: no `  : Filled` line
    expect(outcomeLines({ ...order, code: '', message: 'Filled' }, plain).some((l) => l.startsWith('  :'))).toBe(false);
    expect(outcomeLines(order, colour)[0]).toBe('outcome: \x1b[32mSUCCESS\x1b[0m (from reply)');
  });

  it('an unknown outcome is said as not final (yellow), never as a failure, with how to follow it', () => {
    const unknown: OrderView = { ...order, state: 'UNKNOWN', status: 'UNKNOWN', final: false, fill: undefined };
    delete unknown.fill;
    const lines = outcomeLines(unknown, colour);
    expect(lines[0]).toBe('outcome: \x1b[33mUNKNOWN\x1b[0m (from reply)');
    expect(lines.join('\n')).not.toMatch(/fail/i);
    expect(lines[1]).toContain(
      'keeps reconciling it with the venue; it is never re-placed; follow with `gw orders --id o-1`',
    );
  });

  it('an order not with the connector yet ends by its deadline; one with the connector may be at the venue (outside tester)', () => {
    const view = (state: 'INTENT_RECORDED' | 'SENT'): OrderView => {
      const waiting: OrderView = { ...order, state, final: false };
      delete waiting.fill;
      delete waiting.evidence;
      return waiting;
    };
    expect(outcomeLines(view('INTENT_RECORDED'), plain)[1]).toBe(
      '  not final yet: its command is not with the connector yet; not sent by its send deadline, it ends FAILED ' +
        'SEND_DEADLINE_PASSED; it is never re-placed; follow with `gw orders --id o-1`',
    );
    expect(outcomeLines(view('SENT'), plain)[1]).toBe(
      '  not final yet: its command is with the connector, which may have sent it to the venue; the gateway settles ' +
        'it either way; it is never re-placed; follow with `gw orders --id o-1`',
    );
  });

  it('an order whose trade the venue undid says so, with the trade and that its fill was taken back', () => {
    const undone: OrderView = {
      ...order,
      undone: { state: 'CANCELLED', tradeUuid: 'tr-1', at: Date.UTC(2026, 10, 27, 9) },
    };
    expect(outcomeLines(undone, plain)).toEqual([
      'outcome: SUCCESS (from reply)',
      '  bought 0.01 BTC at 64302.57 USD, paid 643.0257 USD, trade T-9',
      "  UNDONE: the venue CANCELLED trade tr-1 after it executed, at 2026-11-27T09:00:00.000Z; the fill was taken back from the strategy's position and risk exposure",
    ]);
    expect(ordersTable([undone], plain)[1]).toContain('SUCCESS (undone)');
  });

  it('a failure carries its code and message', () => {
    const failed: OrderView = { ...order, state: 'FAILED', status: 'FAILED', code: 'RFS100011', message: 'no' };
    delete failed.fill;
    expect(outcomeLines(failed, plain)).toEqual(['outcome: FAILED (from reply)', '  RFS100011: no']);
  });

  it('a FAILED the venue contradicted says what its trade list showed: executed after all, or the FAILED stands', () => {
    const failed: OrderView = { ...order, state: 'FAILED', status: 'FAILED', code: 'EXECUTION_REJECTED' };
    const fill = failed.fill;
    delete failed.fill;
    const at = Date.UTC(2026, 10, 27, 9);
    const executed: OrderView = {
      ...failed,
      correction: {
        verdict: 'EXECUTED_AFTER_FAILED',
        source: 'reply',
        tradeUuid: 'tr-2',
        at,
        ...(fill ? { fill } : {}),
      },
    };
    expect(outcomeLines(executed, plain)).toEqual([
      'outcome: FAILED (from reply)',
      '  EXECUTION_REJECTED',
      "  EXECUTED AFTER FAILED: the venue later said SUCCESS (reply) and lists trade tr-2: bought 0.01 BTC at 64302.57 USD, booked in the strategy's position and risk exposure (2026-11-27T09:00:00.000Z)",
    ]);
    expect(ordersTable([executed], plain)[1]).toContain('FAILED (executed after)');
    const stands: OrderView = { ...failed, correction: { verdict: 'FAILED_STANDS', source: 'redelivery', at } };
    expect(outcomeLines(stands, plain)[2]).toBe(
      '  CONTRADICTED: the venue later said SUCCESS (redelivery); no trade with its clientRef in the trade list, the FAILED stands (2026-11-27T09:00:00.000Z)',
    );
  });

  it('the orders table, and an empty one', () => {
    expect(ordersTable([order], plain)[0]).toMatch(/^ORDER\s+STRATEGY\s+SIDE\s+INSTRUMENT\s+STATE/);
    expect(ordersTable([order], plain)[1]).toMatch(/^o-1\s+manual\s+BUY\s+BTC\.USD\s+SUCCESS\s+SUCCESS\s+64302\.57/);
    expect(ordersTable([], plain)).toEqual(['no orders']);
  });

  it('buy/sell arguments: required group and strategy, a plain quantity', () => {
    expect(orderArgs('sell', ['BTC.USD', '0.5', 'BTC', 'T', '--group', 'g', '--strategy', 's']).parsed).toEqual({
      side: 'SELL',
      instrument: 'BTC.USD',
      quantity: '0.5',
      currency: 'BTC',
      tenor: 'T',
      group: 'g',
      strategy: 's',
      waitMs: 60_000,
    });
    expect(() => orderArgs('buy', ['BTC.USD', '0.5', 'BTC', 'T', '--strategy', 's'])).toThrow(/--group/);
    expect(() => orderArgs('buy', ['BTC.USD', '1e3', 'BTC', 'T', '--group', 'g', '--strategy', 's'])).toThrow(
      /quantity/,
    );
    expect(() => orderArgs('buy', ['BTC.USD', '1'])).toThrow(/needs <instrument>/);
  });
});

describe('gw account rendering', () => {
  it('balances and transactions as tables, decimals as given', () => {
    const lines = balancesTable([
      { accountGroupUuid: 'g', ccy: 'USD', balance: '1000000.00', available: '999356.97', brokerageAvailable: '0' },
    ]);
    expect(lines[0]).toMatch(/^GROUP\s+NAME\s+CCY\s+BALANCE\s+AVAILABLE\s+BROKERAGE AVAILABLE$/);
    expect(lines[1]).toMatch(/^g\s+USD\s+1000000\.00\s+999356\.97\s+0$/);
    const legs = transactionsTable(
      [
        {
          uuid: 't-1',
          transactionClass: 'CASH',
          transactionType: 'DEPOSIT',
          transactionState: 'PENDING',
          ccy: 'USD',
          amount: '10.00',
          received: 0,
        },
      ],
      plain,
    );
    expect(legs[1]).toMatch(/^1970-01-01T00:00:00\.000Z\s+t-1\s+DEPOSIT\s+10\.00 USD\s+PENDING$/);
  });

  it('rows come after how current they are: as of a time, or STALE plainly (never a stale value shown as live)', () => {
    const asOf = Date.parse('2026-01-31T12:00:00.000Z');
    expect(freshnessLine('balances', { asOf, stale: false }, asOf + 3_000, plain)).toBe(
      'balances as of 2026-01-31T12:00:00.000Z (3s ago)',
    );
    expect(freshnessLine('balances', { asOf, stale: true }, asOf + 66_000, plain)).toBe(
      'STALE: balances last read from the venue 2026-01-31T12:00:00.000Z (66s ago) — last known values, not live (account-sync /health)',
    );
    expect(freshnessLine('trades', { asOf: null, stale: true }, asOf, plain)).toMatch(
      /^STALE: trades not read from the venue since account-sync started — the values an earlier run stored/,
    );
    expect(freshnessLine('trades', { asOf, stale: true }, asOf, colour)).toContain('\x1b[31mSTALE: ');
  });

  it('a withdrawal of unknown outcome says it is never submitted twice', () => {
    const view: WithdrawalView = {
      requestId: 'r1',
      idempotencyKey: 'k',
      kind: 'fiat',
      state: 'UNKNOWN',
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '100.50',
      createdAt: 0,
      updatedAt: 0,
    };
    const lines = withdrawalLines(view, plain);
    expect(lines[0]).toBe('withdrawal r1 (key k): UNKNOWN — fiat 100.50 USD from group g');
    expect(lines[1]).toContain('never submits it twice');
  });

  it('a submit answered NOT_FOUND (never created) exits 1 with the next step; UNKNOWN 3; a request the venue has 0', () => {
    const view: WithdrawalView = {
      requestId: 'r2',
      idempotencyKey: 'k2',
      kind: 'fiat',
      state: 'NOT_FOUND',
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '1.13',
      createdAt: 0,
      updatedAt: 0,
    };
    const lines = withdrawalLines(view, plain);
    expect(lines[0]).toBe('withdrawal r2 (key k2): NOT_FOUND — fiat 1.13 USD from group g');
    expect(lines[1]).toContain('never created');
    expect(lines[2]).toMatch(/^ {2}next: check the venue's own records .*gw withdrawals get r2/);
    expect(submitExitCode(view)).toBe(1);
    expect(submitExitCode({ state: 'REJECTED' })).toBe(1);
    expect(submitExitCode({ state: 'UNKNOWN' })).toBe(3);
    expect(submitExitCode({ state: 'SUBMITTING' })).toBe(3); // not sent yet: not done
    for (const state of ['PENDING_APPROVAL', 'PENDING', 'PROCESSED', 'CANCELLED', 'FAILED'] as const)
      expect(submitExitCode({ state })).toBe(0);
  });

  it('a submit answered SUBMITTING (its send mark not written) says it is not sent yet, with the key to re-run', () => {
    const view: WithdrawalView = {
      requestId: 'r5',
      idempotencyKey: 'k5',
      kind: 'fiat',
      state: 'SUBMITTING',
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '3.00',
      createdAt: 0,
      updatedAt: 0,
    };
    const lines = withdrawalLines(view, plain);
    expect(lines[1]).toContain('not sent yet');
    expect(lines[2]).toContain('re-run this command with --key k5');
    expect(lines[2]).toContain('gw withdrawals get --key k5');
    expect(submitExitCode(view)).toBe(3);
  });

  it('a withdrawal the venue carried out twice names the other venue uuid', () => {
    const view: WithdrawalView = {
      requestId: 'r3',
      idempotencyKey: 'k3',
      kind: 'fiat',
      state: 'PENDING_APPROVAL',
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '1.41',
      venueUuid: 'v-1',
      duplicates: ['v-2'],
      createdAt: 0,
      updatedAt: 0,
    };
    expect(withdrawalLines(view, plain)[1]).toBe(
      '  carried out twice at the venue: also venue v-2 (cancel it there while it can be; docs/runbook.md#gatewaywithdrawalduplicated)',
    );
  });

  it('a withdrawal answered REJECTED that the venue carried out says so, with the venue uuid, beside the old answer', () => {
    const view: WithdrawalView = {
      requestId: 'r4',
      idempotencyKey: 'k4',
      kind: 'fiat',
      state: 'PENDING_APPROVAL',
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '2.01',
      venueUuid: 'v-1',
      rejection: { code: 'VENUE_UNAUTHORIZED', message: 'Unauthorized' },
      carriedOutAfterRejection: { venueUuid: 'v-1', venueState: 'PENDING_APPROVAL', foundAt: 5 },
      createdAt: 0,
      updatedAt: 5,
    };
    expect(withdrawalLines(view, plain).slice(1)).toEqual([
      '  VENUE_UNAUTHORIZED: Unauthorized',
      '  carried out at the venue after the gateway answered REJECTED: venue v-1 (PENDING_APPROVAL when found); ' +
        'money may move — check it was not submitted again under another key (docs/runbook.md#gatewaywithdrawalcarriedoutafterrejection)',
    ]);
  });

  it('trading states: who halted and why; unreadable store said first', () => {
    const states: TradingStatesReply = {
      ok: true,
      readable: false,
      global: { scope: 'global', state: 'HALTED', by: 'anna', reason: 'incident', at: 'T', revision: 2 },
      accountGroups: [],
      strategies: [{ scope: 'strategy', id: 's', state: 'REDUCING', by: 'bot', reason: 'r', at: 'T', revision: 1 }],
    };
    expect(tradingLines(states, plain)).toEqual([
      'trading states cannot be read: every order is refused (fail closed)',
      'global: HALTED — by anna at T: incident',
      '  strategy s: REDUCING — by bot at T: r',
    ]);
  });
});

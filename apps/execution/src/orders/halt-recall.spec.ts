import { describe, expect, it } from '@jest/globals';
import { Subjects, type OrderRecall, type TradingStateEntry } from '#contracts';
import { JsonLogger, MetricsRegistry } from '#observability';
import { Counter } from 'prom-client';
import { HaltRecall, ordersToRecall } from './halt-recall.js';
import type { OrderRecord } from './order-record.js';

const GROUP = '9a00c2b4-1f2e-4d3c-8b7a-6e5f4d3c2b1a';
const open = (clientRequestId: string, state: OrderRecord['state'], strategyId = 'alpha', accountGroup = GROUP) =>
  ({ clientRequestId, state, strategyId, accountGroup }) as OrderRecord;
const entry = (
  scope: TradingStateEntry['scope'],
  id: string | undefined,
  state: TradingStateEntry['state'] = 'HALTED',
) =>
  ({
    scope,
    ...(id !== undefined ? { id } : {}),
    state,
    by: 'ops',
    reason: 'r',
    at: '',
    revision: 1,
  }) as TradingStateEntry;

describe('a halt recalls the orders accepted before it that may not have reached the venue', () => {
  const orders = [
    open('x-intent', 'INTENT_RECORDED'),
    open('x-sent', 'SENT'),
    open('x-pending', 'PENDING'), // the venue has it
    open('x-unknown', 'UNKNOWN'),
    open('x-beta', 'SENT', 'beta', 'f1e2d3c4-0000-4000-8000-000000000000'),
  ];

  it('of the halted scope only, in INTENT_RECORDED or SENT; nothing for REDUCING or ACTIVE', () => {
    expect(ordersToRecall(entry('strategy', 'alpha'), orders)).toEqual(['x-intent', 'x-sent']);
    expect(ordersToRecall(entry('accountGroup', GROUP.toUpperCase()), orders)).toEqual(['x-intent', 'x-sent']);
    expect(ordersToRecall(entry('global', undefined), orders)).toEqual(['x-intent', 'x-sent', 'x-beta']);
    expect(ordersToRecall(entry('strategy', 'alpha', 'REDUCING'), orders)).toEqual([]);
    expect(ordersToRecall(entry('global', undefined, 'ACTIVE'), orders)).toEqual([]);
  });

  it('publishes each order once (risk tells a halt twice: its own write and the watch), counted', async () => {
    const published: OrderRecall[] = [];
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const recalled = new Counter({ name: 'recalled', help: 'h', registers: [registry] });
    const recall = new HaltRecall({
      open: () => orders,
      publisher: { publish: (_s: string, value: unknown) => published.push(value as OrderRecall) > 0 },
      subjects: new Subjects('gw.v1', 'acct1'),
      recalled,
      logger: new JsonLogger('t', 'test', 'error', { write: () => undefined }),
    });
    recall.onTradingState(entry('strategy', 'alpha'));
    recall.onTradingState(entry('strategy', 'alpha'));
    recall.onTradingState(entry('global', undefined));
    expect(published).toEqual([
      { v: 1, clientRequestIds: ['x-intent', 'x-sent'], reason: 'HALTED strategy alpha' },
      { v: 1, clientRequestIds: ['x-beta'], reason: 'HALTED global' },
    ]);
    expect((await recalled.get()).values[0]?.value).toBe(3);
  });
});

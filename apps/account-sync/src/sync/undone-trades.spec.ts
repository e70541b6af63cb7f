import { describe, expect, it } from '@jest/globals';
import { Counter, Registry } from 'prom-client';
import { JsonLogger } from '#observability';
import type { Trade } from '#venue-api';
import { undoneBy, watchUndoneTrades } from './undone-trades.js';

/** `clientRef` '' stands for none. */
const trade = (state: string, clientRef = 'x1abc'): Trade =>
  ({ uuid: 't-1', tradeRef: 'TR-1', state, ...(clientRef === '' ? {} : { clientRef }) }) as Trade;

describe('trades of gateway orders undone at the venue (§3.2)', () => {
  it('a trade with a clientRef moved to CANCELLED or FAILED is undone; nothing else is', () => {
    expect(undoneBy('state-changed', trade('PENDING_SETTLEMENT'), trade('CANCELLED'))).toBe('CANCELLED');
    expect(undoneBy('state-changed', trade('SETTLED'), trade('FAILED'))).toBe('FAILED');
    // no clientRef: not placed through an order API of ours
    expect(undoneBy('state-changed', trade('PENDING_SETTLEMENT', ''), trade('CANCELLED', ''))).toBe(undefined);
    // first read already undone (the account's history at the first sync), a move between undone states, a removal
    expect(undoneBy('created', undefined, trade('CANCELLED'))).toBeUndefined();
    expect(undoneBy('state-changed', trade('CANCELLED'), trade('FAILED'))).toBeUndefined();
    expect(undoneBy('removed', trade('PENDING_SETTLEMENT'), undefined)).toBeUndefined();
    expect(undoneBy('state-changed', trade('PENDING_SETTLEMENT'), trade('SETTLED'))).toBeUndefined();
  });

  it('each one is counted by state and logged with its references, bounded', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'undone', help: 'h', labelNames: ['state'], registers: [registry] });
    const lines: string[] = [];
    const logger = new JsonLogger('undone-test', 'test', 'debug', { write: (line) => lines.push(line) });
    const watch = watchUndoneTrades(counter, logger);
    watch('state-changed', trade('PENDING_SETTLEMENT'), { ...trade('CANCELLED'), clientRef: 'c'.repeat(10_000) });
    watch('state-changed', trade('PENDING_SETTLEMENT'), trade('SETTLED'));
    expect((await counter.get()).values).toEqual([{ labels: { state: 'CANCELLED' }, value: 1 }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"tradeRef":"TR-1"');
    expect(lines[0]).toContain('"from":"PENDING_SETTLEMENT"');
    expect(lines[0]?.length).toBeLessThan(600);
  });
});

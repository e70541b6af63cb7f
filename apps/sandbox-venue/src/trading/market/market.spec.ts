import { describe, it, expect } from '@jest/globals';
import { Decimal } from '../../money.js';
import { firstValueFrom } from 'rxjs';
import { Market } from './market.js';

function walk(seed: number, steps: number): string {
  const m = new Market(seed);
  for (let i = 0; i < steps; i += 1) m.step();
  return m
    .instruments()
    .map((i) => m.mid(i.instrument)?.toFixed())
    .join(',');
}

describe('market', () => {
  it('replays the same walk for the same seed and a different one for another seed', () => {
    expect(walk(7, 50)).toBe(walk(7, 50));
    expect(walk(7, 50)).not.toBe(walk(8, 50));
  });

  it('stays near the seed mid over a long run (mean reversion)', () => {
    const m = new Market(3);
    for (let i = 0; i < 20_000; i += 1) m.step();
    const mid = m.mid('EUR.USD');
    expect(mid?.div('1.08525').minus(1).abs().lt('0.05')).toBe(true);
  });

  it('an operator move holds: the walk reverts toward the new level', () => {
    const m = new Market(3);
    m.setMid('EUR.USD', new Decimal('1.5'));
    for (let i = 0; i < 5_000; i += 1) m.step();
    expect(m.mid('EUR.USD')?.div('1.5').minus(1).abs().lt('0.05')).toBe(true);
  });

  it('moves the mid by operator action', () => {
    const m = new Market(1);
    expect(m.setMid('BTC.USD', new Decimal('50000'))).toBe(true);
    expect(m.mid('BTC.USD')?.toFixed()).toBe('50000');
    expect(m.jump('BTC.USD', new Decimal('-10'))).toBe(true);
    expect(m.mid('BTC.USD')?.toFixed()).toBe('45000');
    expect(m.setMid('BTC.USD', new Decimal('0'))).toBe(false);
    expect(m.jump('BTC.USD', new Decimal('-100'))).toBe(false);
    expect(m.setMid('NOPE.USD', new Decimal('1'))).toBe(false);
  });

  it('announces halts and remembers them until resumed', async () => {
    const m = new Market(1);
    const halted = firstValueFrom(m.halted$);
    m.halt('ETH.USD', 'maintenance');
    await expect(halted).resolves.toEqual({ instrument: 'ETH.USD', reason: 'maintenance' });
    expect(m.isHalted('ETH.USD')).toBe(true);
    m.resume('ETH.USD');
    expect(m.isHalted('ETH.USD')).toBe(false);
  });

  it('silences an instrument without announcing it, until resumed', () => {
    const m = new Market(1);
    let announced = false;
    m.halted$.subscribe(() => (announced = true));
    expect(m.silence('ETH.USD')).toBe(true);
    expect(m.isSilenced('ETH.USD')).toBe(true);
    expect(m.isHalted('ETH.USD')).toBe(false);
    expect(announced).toBe(false);
    m.resume('ETH.USD');
    expect(m.isSilenced('ETH.USD')).toBe(false);
    expect(m.silence('NOPE.USD')).toBe(false);
  });
});

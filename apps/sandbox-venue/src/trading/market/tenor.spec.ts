import { describe, it, expect } from '@jest/globals';
import { instrumentInfo, type InstrumentInfo } from '../../reference/instruments.js';
import { settleDateFor } from './tenor.js';

function info(name: string): InstrumentInfo {
  const found = instrumentInfo(name);
  if (found === undefined) throw new Error(name);
  return found;
}

const at = (y: number, m: number, d: number, h: number): number => Date.UTC(y, m - 1, d, h);
const fx = info('EUR.USD');
const crypto = info('BTC.USD');

describe('settlement dates per tenor (W18)', () => {
  it('Wednesday before the cut-off', () => {
    const now = at(2026, 1, 7, 10);
    expect(settleDateFor('T', fx, now, 22)).toBe('20260107');
    expect(settleDateFor('T1', fx, now, 22)).toBe('20260108');
    expect(settleDateFor('TOD', fx, now, 22)).toBe('20260107');
    expect(settleDateFor('TOM', fx, now, 22)).toBe('20260108');
    expect(settleDateFor('SP', fx, now, 22)).toBe('20260109');
    expect(settleDateFor('SP', crypto, now, 22)).toBe('20260108');
  });

  it('T rolls after the cut-off', () => {
    expect(settleDateFor('T', fx, at(2026, 1, 7, 23), 22)).toBe('20260108');
  });

  it('skips weekends', () => {
    const friday = at(2026, 1, 9, 10);
    expect(settleDateFor('T1', fx, friday, 22)).toBe('20260112');
    expect(settleDateFor('SP', fx, friday, 22)).toBe('20260113');
    const saturday = at(2026, 1, 10, 10);
    expect(settleDateFor('T', fx, saturday, 22)).toBe('20260112');
  });

  it('has no date for an unknown tenor', () => {
    expect(settleDateFor('1W', fx, at(2026, 1, 7, 10), 22)).toBeUndefined();
  });
});

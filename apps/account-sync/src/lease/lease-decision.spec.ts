import { describe, expect, it } from '@jest/globals';
import {
  decideAcquire,
  decideConflict,
  holderLiveness,
  holderStep,
  leaseTimings,
  type AcquireFacts,
  type LeaseHolder,
  type SeenLease,
} from './lease-decision.js';

const holder = (fields: Partial<LeaseHolder> = {}): LeaseHolder => ({
  instanceId: 'other',
  host: 'h1',
  pid: 100,
  renewedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});
const seen = (fields: Partial<LeaseHolder> = {}, revision = 7): SeenLease => ({
  holder: holder(fields),
  revision,
  storedAt: 0,
});
const facts = (fields: Partial<AcquireFacts> = {}): AcquireFacts => ({
  self: { instanceId: 'me' },
  liveness: 'unknown',
  unchangedForMs: 0,
  leaseMs: 5_000,
  ...fields,
});

describe('decideAcquire', () => {
  it('creates a free lease', () => {
    expect(decideAcquire(undefined, facts())).toEqual({ kind: 'create' });
  });

  it('takes a released lease at once, by compare-and-set on its revision', () => {
    expect(decideAcquire(seen({ released: true }), facts({ liveness: 'alive' }))).toEqual({
      kind: 'take',
      revision: 7,
      reason: 'released',
    });
  });

  it('takes at once a lease whose holder is known gone (same host, its process ended)', () => {
    expect(decideAcquire(seen(), facts({ liveness: 'dead' }))).toMatchObject({ kind: 'take', reason: 'holder-gone' });
  });

  it('waits for a live or unknown holder until its revision has not moved for the lease time', () => {
    for (const liveness of ['alive', 'unknown'] as const) {
      expect(decideAcquire(seen(), facts({ liveness, unchangedForMs: 4_999 }))).toEqual({ kind: 'wait' });
      expect(decideAcquire(seen(), facts({ liveness, unchangedForMs: 5_000 }))).toMatchObject({
        kind: 'take',
        reason: 'lapsed',
      });
    }
  });

  it('takes back its own lease (a write stored whose answer was lost)', () => {
    expect(decideAcquire(seen({ instanceId: 'me' }), facts({ liveness: 'alive' }))).toMatchObject({ reason: 'own' });
  });
});

describe('holderLiveness', () => {
  const self = { host: 'h1', pid: 42 };
  const none = () => false;
  it('cannot tell for another host', () => {
    expect(holderLiveness(holder({ host: 'h2' }), self, none, () => false)).toBe('unknown');
  });
  it('asks the process table for another pid on this host', () => {
    expect(holderLiveness(holder({ pid: 100 }), self, none, (pid) => pid === 100)).toBe('alive');
    expect(holderLiveness(holder({ pid: 100 }), self, none, () => false)).toBe('dead');
  });
  it('with this process pid: alive only when that instance of this process still runs', () => {
    const live = (id: string) => id === 'running';
    expect(holderLiveness(holder({ pid: 42, instanceId: 'running' }), self, live, () => true)).toBe('alive');
    // an instance of this process that stopped, or an earlier process that had our pid (a restarted container)
    expect(holderLiveness(holder({ pid: 42, instanceId: 'closed' }), self, live, () => true)).toBe('dead');
  });
});

describe('decideConflict (a renewal lost its compare-and-set)', () => {
  it('writes a lease that is gone again, goes on from its own, and gives up one taken or released', () => {
    expect(decideConflict(undefined, { instanceId: 'me' })).toEqual({ kind: 'recreate' });
    expect(decideConflict(seen({ instanceId: 'me' }, 9), { instanceId: 'me' })).toEqual({ kind: 'adopt', revision: 9 });
    expect(decideConflict(seen(), { instanceId: 'me' })).toMatchObject({
      kind: 'lost',
      holder: { instanceId: 'other' },
    });
    expect(decideConflict(seen({ instanceId: 'me', released: true }), { instanceId: 'me' })).toMatchObject({
      kind: 'lost',
    });
  });
});

describe('leaseTimings and holderStep', () => {
  const timings = leaseTimings(5_000);
  it('renews four times per lease and fences one renewal period before a standby may take over', () => {
    expect(timings).toEqual({ renewEveryMs: 1_250, fenceAfterMs: 3_750, retryEveryMs: 1_000, watchdogEveryMs: 250 });
  });
  it('renews when due and none is in flight; fences when the last good renewal is too old, even one in flight', () => {
    const held = { lastRenewalSentAt: 0, lastAttemptAt: 0, inFlight: false };
    expect(holderStep(1_000, held, timings)).toBe('idle');
    expect(holderStep(1_250, held, timings)).toBe('renew');
    expect(holderStep(1_250, { ...held, inFlight: true }, timings)).toBe('idle');
    expect(holderStep(3_751, { ...held, inFlight: true }, timings)).toBe('fence');
  });
  it('a renewal that failed (or goes unanswered) is tried again every retry period, not a renewal period later', () => {
    // due at 1,250: tried then, failed; the next try one retry period (1 s) after, not at 2,500
    const failed = { lastRenewalSentAt: 0, lastAttemptAt: 1_250, inFlight: false };
    expect(holderStep(2_000, failed, timings)).toBe('idle');
    expect(holderStep(2_250, failed, timings)).toBe('renew');
    expect(holderStep(2_250, { ...failed, inFlight: true }, timings)).toBe('idle');
    // renewed at 1,250: nothing until the next period
    expect(holderStep(2_250, { lastRenewalSentAt: 1_250, lastAttemptAt: 1_250, inFlight: false }, timings)).toBe(
      'idle',
    );
  });
});

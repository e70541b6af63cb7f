import { describe, expect, it } from '@jest/globals';
import {
  isOrphan,
  newRelease,
  releaseFrameLeft,
  releaseOnConnectionUp,
  releaseOnPrice,
  releaseOnSweep,
  type ReleasePolicy,
  type VenueRelease,
} from './venue-release.js';

const policy: ReleasePolicy = { confirmTimeoutMs: 10_000, maxSends: 3, retentionMs: 60_000 };

/** Released at 0, its first frame left at once. */
function sentOnce(): VenueRelease {
  const { release, action } = newRelease('S1', 'g1-1', 0);
  expect(action).toBe('sendUnanswered');
  return releaseFrameLeft(release, true, 0, policy);
}

describe('a released venue subscription (until the venue confirms it gone)', () => {
  it('an unanswered unsubscribe is sent again after the confirm timeout, doubling, at most maxSends frames', () => {
    let r = sentOnce();
    expect(releaseOnSweep(r, 9_999, policy).action).toBe('none');
    let step = releaseOnSweep(r, 10_000, policy);
    expect(step.action).toBe('sendUnanswered');
    // queued for the budget: no second frame asked for meanwhile
    expect(releaseOnSweep(step.release, 20_000, policy).action).toBe('none');
    r = releaseFrameLeft(step.release, true, 10_000, policy);
    expect(releaseOnSweep(r, 29_999, policy).action).toBe('none');
    step = releaseOnSweep(r, 30_000, policy);
    expect(step.action).toBe('sendUnanswered');
    r = releaseFrameLeft(step.release, true, 30_000, policy);
    expect(r.sends).toBe(3);
    expect(r.retryAt).toBeUndefined(); // given up on the timer: only a price revives it
    expect(releaseOnSweep(r, 1_000_000 - 1, { ...policy, retentionMs: 2_000_000 }).action).toBe('none');
  });

  it('a release given up on is forgotten after its retention, counted from its last frame or price', () => {
    let r = sentOnce();
    for (const at of [10_000, 30_000]) r = releaseFrameLeft(releaseOnSweep(r, at, policy).release, true, at, policy);
    expect(releaseOnSweep(r, 30_000 + 59_999, policy).action).toBe('none');
    expect(releaseOnSweep(r, 30_000 + 60_000, policy).action).toBe('forget');
  });

  it('prices already on the way when the venue read the unsubscribe are expected: nothing is sent for them', () => {
    const r = sentOnce();
    expect(releaseOnPrice(r, 9_999, policy)).toEqual({ release: r, action: 'none' });
    expect(isOrphan(r, 9_999, 30_000)).toBe(false);
  });

  it('a price long after the unsubscribe left proves an orphan: one more frame, then none for a confirm timeout, however many prices come', () => {
    let r = sentOnce();
    for (const at of [10_000, 30_000]) r = releaseFrameLeft(releaseOnSweep(r, at, policy).release, true, at, policy);
    const step = releaseOnPrice(r, 100_000, policy);
    expect(step.action).toBe('sendStreaming');
    expect(isOrphan(step.release, 100_000, 30_000)).toBe(true);
    expect(releaseOnPrice(step.release, 100_250, policy).action).toBe('none'); // still queued
    r = releaseFrameLeft(step.release, true, 100_500, policy);
    expect(releaseOnPrice(r, 105_000, policy).action).toBe('none');
    expect(releaseOnPrice(r, 110_499, policy).action).toBe('none');
    expect(releaseOnPrice(r, 110_500, policy).action).toBe('sendStreaming');
    expect(isOrphan(r, 100_000 + 30_001, 30_000)).toBe(false); // no price lately: no longer counted as streaming
  });

  it('a frame that could not leave (no connection) goes when one opens, not before', () => {
    const { release } = newRelease('S1', 'g1-1', 0);
    const unsent = releaseFrameLeft(release, false, 0, policy);
    expect(unsent.sends).toBe(0);
    expect(releaseOnSweep(unsent, 1_000_000, policy).action).toBe('none');
    const up = releaseOnConnectionUp(unsent);
    expect(up.action).toBe('sendUnanswered');
    expect(releaseOnConnectionUp(up.release).action).toBe('none');
    expect(releaseOnConnectionUp(sentOnce()).action).toBe('none');
  });
});

import { describe, expect, it } from '@jest/globals';
import type { WebhookSourceAddresses } from '#venue-api';
import { admitSource, initialSourceList, sourceListTransition, type SourceListState } from './source-list-machine.js';

function list(version: number, cidrs: string[], notice: WebhookSourceAddresses['change_notice'] = null) {
  return { kind: 'fetched' as const, list: { version, ipv4_cidrs: cidrs, change_notice: notice } };
}

describe('sourceListTransition (ips.json)', () => {
  it('loads the first list and its addresses', () => {
    const { state, effects } = sourceListTransition(initialSourceList, list(1, ['10.0.0.0/8']), { now: 5 });
    expect(state.version).toBe(1);
    expect(state.addresses.contains('10.1.2.3')).toBe(true);
    expect(state.lastGoodFetchAt).toBe(5);
    expect(effects).toEqual([{ kind: 'loaded', version: 1, previousVersion: undefined, blocks: 1, invalid: [] }]);
  });

  it('reloads only when the version changes', () => {
    const first = sourceListTransition(initialSourceList, list(1, ['10.0.0.0/8']), { now: 1 }).state;
    const same = sourceListTransition(first, list(1, ['192.0.2.0/24']), { now: 2 });
    expect(same.effects).toEqual([]);
    expect(same.state.addresses.contains('10.0.0.1')).toBe(true);
    expect(same.state.lastGoodFetchAt).toBe(2);
    const changed = sourceListTransition(same.state, list(2, ['192.0.2.0/24']), { now: 3 });
    expect(changed.state.addresses.contains('10.0.0.1')).toBe(false);
    expect(changed.state.addresses.contains('192.0.2.9')).toBe(true);
    expect(changed.effects[0]).toMatchObject({ kind: 'loaded', version: 2, previousVersion: 1 });
  });

  it('keeps the last good list when a fetch fails, counting failures', () => {
    const loaded = sourceListTransition(initialSourceList, list(1, ['10.0.0.0/8']), { now: 1 }).state;
    const failed = sourceListTransition(loaded, { kind: 'fetch-failed', reason: 'HTTP 503' }, { now: 2 });
    const twice = sourceListTransition(failed.state, { kind: 'fetch-failed', reason: 'timeout' }, { now: 3 });
    expect(twice.state.addresses.contains('10.0.0.1')).toBe(true);
    expect(twice.state.consecutiveFailures).toBe(2);
    expect(twice.state.lastGoodFetchAt).toBe(1);
    expect(twice.effects).toEqual([{ kind: 'kept-last-good', reason: 'timeout', consecutiveFailures: 2 }]);
  });

  it('a first list with no usable block loads nothing: the same version is read again once it holds one', () => {
    const empty = sourceListTransition(initialSourceList, list(7, []), { now: 1 });
    expect(empty.state.version).toBeUndefined();
    expect(empty.state.lastGoodFetchAt).toBeUndefined();
    expect(empty.effects).toEqual([
      { kind: 'kept-last-good', reason: 'version 7 holds no usable address block', consecutiveFailures: 1 },
    ]);
    const garbage = sourceListTransition(empty.state, list(7, ['garbage']), { now: 2 });
    expect(garbage.state.version).toBeUndefined();
    const fixed = sourceListTransition(garbage.state, list(7, ['10.0.0.0/8']), { now: 3 });
    expect(fixed.state.version).toBe(7);
    expect(fixed.state.addresses.contains('10.0.0.1')).toBe(true);
    expect(fixed.state.consecutiveFailures).toBe(0);
  });

  it('keeps the last good list when a new version has no usable block', () => {
    const loaded = sourceListTransition(initialSourceList, list(1, ['10.0.0.0/8']), { now: 1 }).state;
    const bad = sourceListTransition(loaded, list(2, ['garbage']), { now: 2 });
    expect(bad.state.version).toBe(1);
    expect(bad.state.addresses.contains('10.0.0.1')).toBe(true);
    expect(bad.effects[0]).toMatchObject({ kind: 'kept-last-good' });
  });

  it('announces a change notice once, and again when it changes', () => {
    const notice = { message: 'new range', effective_date: '2026-12-01' };
    let state: SourceListState = initialSourceList;
    const first = sourceListTransition(state, list(1, ['10.0.0.0/8'], notice), { now: 1 });
    expect(first.effects).toContainEqual({ kind: 'change-notice', notice });
    state = first.state;
    const again = sourceListTransition(state, list(1, ['10.0.0.0/8'], { ...notice }), { now: 2 });
    expect(again.effects).toEqual([]);
    const other = sourceListTransition(again.state, list(1, ['10.0.0.0/8'], { ...notice, message: 'moved' }), {
      now: 3,
    });
    expect(other.effects).toHaveLength(1);
    const cleared = sourceListTransition(other.state, list(1, ['10.0.0.0/8']), { now: 4 });
    expect(cleared.state.changeNotice).toBeNull();
  });
});

describe('admitSource (a sender judged against the held list; §6.1 rule 5: a 4xx is never retried)', () => {
  const gap = { refusedRefreshGapMs: 10_000 };
  const held = sourceListTransition(initialSourceList, list(1, ['10.0.0.0/8']), { now: 0 }).state;

  it('unready before any list, allowed inside the list, neither touches the state', () => {
    expect(admitSource(initialSourceList, '10.0.0.1', { now: 1, refreshing: false, ...gap })).toEqual({
      state: initialSourceList,
      verdict: 'unready',
      refresh: false,
    });
    expect(admitSource(held, '10.0.0.1', { now: 1, refreshing: false, ...gap })).toEqual({
      state: held,
      verdict: 'allowed',
      refresh: false,
    });
  });

  it('an outside address asks for a refresh and gets retry (503); once refreshed and still outside: refused (403)', () => {
    const first = admitSource(held, '192.0.2.1', { now: 1_000, refreshing: false, ...gap });
    expect(first).toMatchObject({ verdict: 'retry', refresh: true });
    // the venue's retry while that refresh runs: retry, no second fetch
    expect(admitSource(first.state, '192.0.2.1', { now: 1_500, refreshing: true, ...gap })).toMatchObject({
      verdict: 'retry',
      refresh: false,
    });
    // the refresh came back without the address: refused as before
    const after = sourceListTransition(first.state, list(1, ['10.0.0.0/8']), { now: 1_800 }).state;
    expect(admitSource(after, '192.0.2.1', { now: 2_000, refreshing: false, ...gap })).toMatchObject({
      verdict: 'refused',
      refresh: false,
    });
    // the list loaded by the refresh holds it
    const moved = sourceListTransition(first.state, list(2, ['192.0.2.0/24']), { now: 1_800 }).state;
    expect(admitSource(moved, '192.0.2.1', { now: 2_000, refreshing: false, ...gap }).verdict).toBe('allowed');
  });

  it('a flood from random addresses refreshes at most once per gap, and holds no per-address state', () => {
    let state = held;
    let refreshes = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const next = admitSource(state, `192.0.${i % 250}.${i % 200}`, { now: i * 100, refreshing: false, ...gap });
      state = next.state;
      if (next.refresh) refreshes += 1;
    }
    expect(refreshes).toBe(10); // 100 s of flood, one refresh per 10 s
    expect(Object.keys(state).sort()).toEqual(Object.keys(held).sort());
  });

  it('while ips.json announces a change (before or after its effective_date): retry, never refused', () => {
    const notice = { message: 'moving', effective_date: '2026-01-01' };
    const announced = sourceListTransition(held, list(2, ['10.0.0.0/8'], notice), { now: 1 }).state;
    const asked = admitSource(announced, '192.0.2.1', { now: 2, refreshing: false, ...gap });
    expect(asked).toMatchObject({ verdict: 'retry', refresh: true });
    expect(admitSource(asked.state, '192.0.2.1', { now: 3, refreshing: false, ...gap })).toMatchObject({
      verdict: 'retry',
      refresh: false,
    });
  });
});

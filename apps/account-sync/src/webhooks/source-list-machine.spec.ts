import { describe, expect, it } from '@jest/globals';
import type { WebhookSourceAddresses } from '#venue-api';
import { initialSourceList, sourceListTransition, type SourceListState } from './source-list-machine.js';

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

import { describe, expect, it } from '@jest/globals';
import { reconnectDelay } from '#actors';
import {
  initialSessionContext,
  REPLACEMENTS_KEPT,
  replacementsSince,
  type SessionContext,
  type SessionEffect,
  type SessionEvent,
  transition,
} from './session-machine.js';

const env = { now: 1_000, random: 0.5, backoff: { initialMs: 100, maxMs: 1_000 }, stableAfterMs: 500 };

function run(events: SessionEvent[], start: SessionContext = initialSessionContext(0), now = env.now) {
  let context = start;
  const effects: SessionEffect[][] = [];
  for (const event of events) {
    const next = transition(context, event, { ...env, now });
    context = next.context;
    effects.push(next.effects);
  }
  return { context, effects };
}

const types = (effects: SessionEffect[] | undefined) => (effects ?? []).map((e) => e.type);

describe('reconnectDelay', () => {
  it('retries at once first, then backs off exponentially with full jitter up to the cap', () => {
    const policy = { initialMs: 100, maxMs: 1_000 };
    expect(reconnectDelay(1, policy, 0.99)).toBe(0);
    expect(reconnectDelay(2, policy, 0.5)).toBe(50);
    expect(reconnectDelay(3, policy, 0.5)).toBe(100);
    expect(reconnectDelay(4, policy, 0.5)).toBe(200);
    expect(reconnectDelay(20, policy, 0.999)).toBe(999);
    expect(reconnectDelay(200, policy, 0.5)).toBe(500);
    expect(reconnectDelay(3, policy, 0)).toBe(0);
  });
});

describe('session transitions', () => {
  it('fetches a fresh token before connecting, then opens', () => {
    const { context, effects } = run([
      { type: 'start' },
      { type: 'tokenFetched', generation: 1, token: 't1' },
      { type: 'socketOpened', generation: 1 },
    ]);
    expect(context.state).toBe('open');
    expect(effects[0]).toEqual([{ type: 'fetchToken', generation: 1 }]);
    expect(effects[1]).toEqual([{ type: 'openSocket', generation: 1, token: 't1' }]);
    expect(types(effects[2])).toEqual(['startWatchdogs', 'connectionUp']);
    expect(context.since).toBe(1_000);
  });

  const open = run([
    { type: 'start' },
    { type: 'tokenFetched', generation: 1, token: 't1' },
    { type: 'socketOpened', generation: 1 },
  ]).context;

  it('reconnects at once with a new token after losing an open connection', () => {
    const { context, effects } = run([{ type: 'socketClosed', generation: 1, code: 1006, reason: '' }], open);
    expect(context.state).toBe('fetchingToken');
    expect(context.generation).toBe(2);
    expect(context.reconnects).toBe(1);
    expect(types(effects[0])).toEqual([
      'stopWatchdogs',
      'countReconnect',
      'closeSocket',
      'connectionDown',
      'fetchToken',
    ]);
  });

  it('backs off after a failed retry, and a refused token counts as a failure', () => {
    const { context, effects } = run(
      [
        { type: 'socketClosed', generation: 1, code: 1006, reason: '' },
        { type: 'tokenFetched', generation: 2, token: 't2' },
        { type: 'socketFailed', generation: 2, reason: 'HTTP 401' },
      ],
      open,
    );
    expect(context.state).toBe('backoff');
    expect(effects[2]).toContainEqual({ type: 'scheduleBackoff', generation: 2, delayMs: 50 });
    const after = run(
      [
        { type: 'backoffElapsed', generation: 2 },
        { type: 'tokenFailed', generation: 3, reason: 'x' },
      ],
      context,
    );
    expect(after.context.state).toBe('backoff');
    expect(after.effects[1]).toContainEqual({ type: 'scheduleBackoff', generation: 3, delayMs: 100 });
  });

  it('resets the backoff only once a connection proved stable', () => {
    const failed = run([{ type: 'start' }, { type: 'tokenFailed', generation: 1, reason: 'x' }]).context;
    expect(failed.state).toBe('fetchingToken'); // first retry immediate
    const again = run([{ type: 'tokenFailed', generation: 2, reason: 'x' }], failed).context;
    expect(again.state).toBe('backoff');
    const reopened = run(
      [
        { type: 'backoffElapsed', generation: 2 },
        { type: 'tokenFetched', generation: 3, token: 't' },
        { type: 'socketOpened', generation: 3 },
      ],
      again,
    ).context;
    // Closed right after opening (e.g. a refused sessionId, W9): one more failure, so a backoff.
    const shortLived = run([{ type: 'socketClosed', generation: 3, code: 1008, reason: '' }], reopened, 1_100);
    expect(shortLived.context.state).toBe('backoff');
    expect(shortLived.context.failures).toBe(3);
    // Open long enough: the loss starts over with an immediate retry.
    const stable = run([{ type: 'socketClosed', generation: 3, code: 1006, reason: '' }], reopened, 1_000 + 500);
    expect(stable.context.state).toBe('fetchingToken');
    expect(stable.context.failures).toBe(1);
  });

  it('ignores events of an earlier attempt', () => {
    const lost = run([{ type: 'socketClosed', generation: 1, code: 1006, reason: '' }], open).context;
    const stale = run(
      [
        { type: 'socketOpened', generation: 1 },
        { type: 'tokenFetched', generation: 1, token: 'old' },
        { type: 'stalled', generation: 1 },
      ],
      lost,
    );
    expect(stale.context).toBe(lost);
    expect(stale.effects.flat()).toEqual([]);
  });

  it('treats a stall like a loss: close the silent socket, reconnect', () => {
    const { context, effects } = run([{ type: 'stalled', generation: 1 }], open);
    expect(context.state).toBe('fetchingToken');
    expect(effects[0]).toContainEqual({ type: 'countReconnect', reason: 'stalled' });
    expect(effects[0]).toContainEqual({ type: 'closeSocket', reason: 'stalled' });
  });

  it('refreshes with a new token, closing the old socket before the new one connects', () => {
    const due = run([{ type: 'refreshDue', generation: 1 }], open);
    expect(due.context.state).toBe('open');
    expect(due.effects[0]).toEqual([{ type: 'fetchToken', generation: 1 }]);
    const swapped = run([{ type: 'tokenFetched', generation: 1, token: 'fresh' }], due.context);
    expect(swapped.context.state).toBe('connecting');
    const kinds = types(swapped.effects[0]);
    expect(kinds.indexOf('closeSocket')).toBeLessThan(kinds.indexOf('openSocket'));
    expect(swapped.effects[0]).toContainEqual({ type: 'openSocket', generation: 2, token: 'fresh' });
  });

  it('keeps the working connection when the refresh token cannot be fetched', () => {
    const due = run(
      [
        { type: 'refreshDue', generation: 1 },
        { type: 'tokenFailed', generation: 1, reason: 'x' },
      ],
      open,
    );
    expect(due.context.state).toBe('open');
    expect(due.effects[1]).toEqual([{ type: 'scheduleRefresh', generation: 1, delayMs: 100 }]);
  });

  it('a refresh failing again and again backs off (capped), not 4 tries a second eating the REST budget', () => {
    const fail = (ctx: SessionContext) =>
      run(
        [
          { type: 'refreshDue', generation: 1 },
          { type: 'tokenFailed', generation: 1, reason: 'HTTP 401' },
        ],
        ctx,
      );
    const delays: unknown[] = [];
    let ctx = open;
    for (let i = 0; i < 6; i += 1) {
      const step = fail(ctx);
      delays.push(step.effects[1]?.[0]);
      ctx = step.context;
    }
    expect(delays.map((e) => (e as { delayMs: number }).delayMs)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    // a refresh that works starts the count again
    const swapped = run(
      [
        { type: 'refreshDue', generation: 1 },
        { type: 'tokenFetched', generation: 1, token: 't' },
      ],
      ctx,
    );
    expect(swapped.context.refreshFailures).toBe(0);
  });

  it('backs off instead of snatching the session back when replaced (close 4001)', () => {
    const { context } = run([{ type: 'socketClosed', generation: 1, code: 4001, reason: '' }], open);
    expect(context.state).toBe('backoff');
  });

  it('waits at least the initial delay after a replacement, whatever the jitter draws (K5: never at once)', () => {
    const replaced = { type: 'socketClosed', generation: 1, code: 4001, reason: '' } as const;
    for (const random of [0, 0.001, 0.5, 0.999]) {
      const next = transition(open, replaced, { ...env, random });
      const backoff = next.effects.find((e) => e.type === 'scheduleBackoff');
      expect(backoff).toBeDefined();
      const delayMs = (backoff as { delayMs: number }).delayMs;
      expect(delayMs).toBeGreaterThanOrEqual(env.backoff.initialMs);
      expect(delayMs).toBeLessThanOrEqual(2 * env.backoff.initialMs);
    }
  });

  it('takes any plausible sign of a replacement for one (W19, not shown): an error frame before any close, or the close reason', () => {
    const signs: SessionEvent[] = [
      { type: 'socketClosed', generation: 1, code: 1008, reason: '', replacedNotice: true },
      { type: 'socketClosed', generation: 1, code: 1000, reason: 'SESSION_REPLACED' },
    ];
    for (const sign of signs) {
      const { context, effects } = run([sign], open);
      expect(context.state).toBe('backoff');
      expect(effects[0]).toContainEqual({ type: 'countReconnect', reason: 'replaced' });
    }
    const plain = run([{ type: 'socketClosed', generation: 1, code: 1000, reason: 'bye' }], open);
    expect(plain.effects[0]).toContainEqual({ type: 'countReconnect', reason: 'closed' });
  });

  it('remembers when the venue replaced the connection (a session id in use elsewhere), not other losses', () => {
    const replaced = { type: 'socketClosed', generation: 1, code: 4001, reason: '' } as const;
    const once = run([replaced], open, 5_000).context;
    expect(once.replacedAt).toEqual([5_000]);
    const closed = run([{ type: 'socketClosed', generation: 1, code: 1006, reason: '' }], open, 6_000).context;
    expect(closed.replacedAt).toEqual([]);
    let ctx: SessionContext = { ...open, replacedAt: once.replacedAt };
    for (let at = 6_000; at < 6_000 + 12 * 1_000; at += 1_000) {
      ctx = run([replaced], { ...ctx, state: 'open', generation: 1 }, at).context;
    }
    expect(ctx.replacedAt).toHaveLength(REPLACEMENTS_KEPT);
    expect(ctx.replacedAt.at(-1)).toBe(17_000);
    expect(replacementsSince(ctx, 15_000)).toBe(3);
    expect(replacementsSince(ctx, 0)).toBe(REPLACEMENTS_KEPT);
  });

  it('drains an open session before closing it', () => {
    const { context, effects } = run([{ type: 'stop' }, { type: 'drained' }], open);
    expect(types(effects[0])).toEqual(['stopWatchdogs', 'drain']);
    expect(types(effects[1])).toEqual(['closeSocket', 'connectionDown']);
    expect(context.state).toBe('stopped');
  });

  it('stops at once when not open and ignores late results', () => {
    const connecting = run([{ type: 'start' }, { type: 'tokenFetched', generation: 1, token: 't' }]).context;
    const stopped = run([{ type: 'stop' }, { type: 'socketOpened', generation: 1 }, { type: 'start' }], connecting);
    expect(stopped.context.state).toBe('stopped');
    expect(types(stopped.effects[0])).toEqual(['cancelBackoff', 'closeSocket']);
    expect(stopped.effects[1]).toEqual([]);
  });
});

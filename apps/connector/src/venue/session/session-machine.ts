import { VenueCloseCode } from '#venue-api';
import type { SessionState } from '#contracts';
import { type BackoffPolicy, doublingDelay, reconnectDelay } from '#actors';

/**
 * The venue session as a pure transition function: (context, event, environment) → (context, effects).
 * No I/O here; `VenueSession` executes the effects and feeds results back as events. Every connect
 * attempt gets a new `generation`; events from an older attempt (a late token, the close of a socket we
 * already left) carry the old generation and are ignored.
 */

export interface SessionContext {
  state: SessionState;
  /** Epoch ms the current state was entered. */
  since: number;
  generation: number;
  /** Consecutive failed attempts since the last stable connection (drives the backoff). */
  failures: number;
  reconnects: number;
  /** While open: a fresh token is being fetched to replace this connection. */
  refreshing: boolean;
  /** Refresh token fetches failed in a row (drives their backoff; each is a REST call of the shared budget). */
  refreshFailures: number;
  /**
   * When the venue last closed the open connection for another one with our sessionId (epoch ms, newest last,
   * at most REPLACEMENTS_KEPT): several in a short while mean another client uses this session id.
   */
  replacedAt: readonly number[];
}

/** Replacements remembered: enough for any "how many in the last few minutes" question. */
export const REPLACEMENTS_KEPT = 8;

/**
 * The session is *contested* — another client (a second connector, a forgotten script) connects with our
 * sessionId, and the two take the session from each other — once the venue replaced our connection this many
 * times within CONTESTED_WINDOW_MS. One replacement alone can be a hand-over; two are a duel.
 */
export const CONTESTED_AFTER = 2;
/** The window's default (connector setting SESSION_CONTESTED_WINDOW_MS). */
export const CONTESTED_WINDOW_MS = 5 * 60_000;

/** How many times the venue replaced this session's connection since `sinceMs` (epoch ms). */
export function replacementsSince(ctx: SessionContext, sinceMs: number): number {
  return ctx.replacedAt.filter((at) => at >= sinceMs).length;
}

export const LOSS_REASONS = ['closed', 'stalled', 'refresh', 'replaced'] as const;
export type LossReason = (typeof LOSS_REASONS)[number];

export type SessionEvent =
  | { type: 'start' }
  | { type: 'stop' }
  | { type: 'tokenFetched'; generation: number; token: string }
  | { type: 'tokenFailed'; generation: number; reason: string }
  | { type: 'socketOpened'; generation: number }
  | { type: 'socketFailed'; generation: number; reason: string }
  /** `replacedNotice`: the connection carried an error frame saying the session was replaced (W19). */
  | { type: 'socketClosed'; generation: number; code: number; reason: string; replacedNotice?: boolean }
  | { type: 'stalled'; generation: number }
  | { type: 'refreshDue'; generation: number }
  | { type: 'backoffElapsed'; generation: number }
  | { type: 'drained' };

export type SessionEffect =
  | { type: 'fetchToken'; generation: number }
  | { type: 'openSocket'; generation: number; token: string }
  /** Awaited: listeners detached, close handshake done (or socket terminated) before the next effect. */
  | { type: 'closeSocket'; reason: string }
  | { type: 'scheduleBackoff'; generation: number; delayMs: number }
  | { type: 'cancelBackoff' }
  /** Stall watch and the connection-age refresh timer for this generation. */
  | { type: 'startWatchdogs'; generation: number }
  | { type: 'stopWatchdogs' }
  | { type: 'scheduleRefresh'; generation: number; delayMs: number }
  | { type: 'connectionUp'; generation: number }
  | { type: 'connectionDown'; reason: LossReason | 'stop' }
  | { type: 'countReconnect'; reason: LossReason }
  | { type: 'drain' };

export interface SessionEnvironment {
  now: number;
  /** Uniform [0, 1), for jitter. */
  random: number;
  backoff: BackoffPolicy;
  /**
   * A connection must stay open this long before its loss counts as a fresh start (immediate retry).
   * A venue that accepts and then at once closes (bad sessionId, W9) must not get a tight reconnect loop.
   */
  stableAfterMs: number;
}

export interface Transition {
  context: SessionContext;
  effects: SessionEffect[];
}

export function initialSessionContext(now: number): SessionContext {
  return {
    state: 'idle',
    since: now,
    generation: 0,
    failures: 0,
    reconnects: 0,
    refreshing: false,
    refreshFailures: 0,
    replacedAt: [],
  };
}

export function transition(ctx: SessionContext, event: SessionEvent, env: SessionEnvironment): Transition {
  if ('generation' in event && event.generation !== ctx.generation) return unchanged(ctx);
  switch (event.type) {
    case 'start':
      if (ctx.state !== 'idle') return unchanged(ctx);
      return attempt(ctx, env, 0, []);
    case 'stop':
      return stop(ctx, env);
    case 'drained':
      if (ctx.state !== 'draining') return unchanged(ctx);
      return enter(ctx, env, 'stopped', {}, [
        { type: 'closeSocket', reason: 'stopped' },
        { type: 'connectionDown', reason: 'stop' },
      ]);
    case 'tokenFetched':
      if (ctx.state === 'fetchingToken') {
        return enter(ctx, env, 'connecting', {}, [
          { type: 'openSocket', generation: ctx.generation, token: event.token },
        ]);
      }
      if (ctx.state === 'open' && ctx.refreshing) {
        // Close the old connection first, then connect: never two sockets on one sessionId.
        const generation = ctx.generation + 1;
        const changes = { generation, refreshing: false, refreshFailures: 0, reconnects: ctx.reconnects + 1 };
        return enter(ctx, env, 'connecting', changes, [
          { type: 'stopWatchdogs' },
          { type: 'countReconnect', reason: 'refresh' },
          { type: 'closeSocket', reason: 'refresh' },
          { type: 'connectionDown', reason: 'refresh' },
          { type: 'openSocket', generation, token: event.token },
        ]);
      }
      return unchanged(ctx);
    case 'tokenFailed':
      if (ctx.state === 'fetchingToken') return fail(ctx, env, []);
      if (ctx.state === 'open' && ctx.refreshing) {
        // Keep the working connection; try the refresh again later, backing off while it keeps failing.
        const refreshFailures = ctx.refreshFailures + 1;
        const delayMs = doublingDelay(refreshFailures - 1, env.backoff);
        return {
          context: { ...ctx, refreshing: false, refreshFailures },
          effects: [{ type: 'scheduleRefresh', generation: ctx.generation, delayMs }],
        };
      }
      return unchanged(ctx);
    case 'socketOpened':
      if (ctx.state !== 'connecting') return unchanged(ctx);
      return enter(ctx, env, 'open', { refreshing: false, refreshFailures: 0 }, [
        { type: 'startWatchdogs', generation: ctx.generation },
        { type: 'connectionUp', generation: ctx.generation },
      ]);
    case 'socketFailed':
      if (ctx.state !== 'connecting') return unchanged(ctx);
      return fail(ctx, env, [{ type: 'closeSocket', reason: 'connect failed' }]);
    case 'socketClosed':
      if (ctx.state === 'connecting') return fail(ctx, env, [{ type: 'closeSocket', reason: 'closed' }]);
      if (ctx.state === 'open') {
        return lose(ctx, env, replacedClose(event) ? 'replaced' : 'closed');
      }
      if (ctx.state === 'draining') {
        return enter(ctx, env, 'stopped', {}, [
          { type: 'closeSocket', reason: 'closed' },
          { type: 'connectionDown', reason: 'stop' },
        ]);
      }
      return unchanged(ctx);
    case 'stalled':
      if (ctx.state !== 'open') return unchanged(ctx);
      return lose(ctx, env, 'stalled');
    case 'refreshDue':
      if (ctx.state !== 'open' || ctx.refreshing) return unchanged(ctx);
      return { context: { ...ctx, refreshing: true }, effects: [{ type: 'fetchToken', generation: ctx.generation }] };
    case 'backoffElapsed':
      if (ctx.state !== 'backoff') return unchanged(ctx);
      return attempt(ctx, env, ctx.failures, []);
  }
}

/**
 * W19: how the venue closes a connection whose session id another connection took is not shown. Any of the
 * plausible signs counts: the sandbox's close code 4001, an error frame on that connection saying so (whatever
 * close code follows), or a close reason naming it.
 */
function replacedClose(event: { code: number; reason: string; replacedNotice?: boolean }): boolean {
  return (
    event.code === VenueCloseCode.SessionReplaced || event.replacedNotice === true || /replaced/i.test(event.reason)
  );
}

function unchanged(ctx: SessionContext): Transition {
  return { context: ctx, effects: [] };
}

function enter(
  ctx: SessionContext,
  env: SessionEnvironment,
  state: SessionState,
  patch: Partial<SessionContext>,
  effects: SessionEffect[],
): Transition {
  const since = state === ctx.state ? ctx.since : env.now;
  return { context: { ...ctx, ...patch, state, since }, effects };
}

/** A new connect attempt: new generation, fresh single-use token first. */
function attempt(ctx: SessionContext, env: SessionEnvironment, failures: number, before: SessionEffect[]): Transition {
  const generation = ctx.generation + 1;
  return enter(ctx, env, 'fetchingToken', { generation, failures, refreshing: false }, [
    ...before,
    { type: 'fetchToken', generation },
  ]);
}

/** An attempt failed: retry at once the first time, then back off. */
function fail(ctx: SessionContext, env: SessionEnvironment, before: SessionEffect[]): Transition {
  const failures = ctx.failures + 1;
  const delayMs = reconnectDelay(failures, env.backoff, env.random);
  if (delayMs === 0) return attempt(ctx, env, failures, before);
  return enter(ctx, env, 'backoff', { failures }, [
    ...before,
    { type: 'scheduleBackoff', generation: ctx.generation, delayMs },
  ]);
}

/** The open connection is gone (or declared dead): reconnect, immediately the first time. */
function lose(ctx: SessionContext, env: SessionEnvironment, reason: LossReason): Transition {
  const lost: SessionContext = { ...ctx, reconnects: ctx.reconnects + 1, refreshing: false };
  const before: SessionEffect[] = [
    { type: 'stopWatchdogs' },
    { type: 'countReconnect', reason },
    { type: 'closeSocket', reason },
    { type: 'connectionDown', reason },
  ];
  // Another holder took our sessionId: do not snatch it straight back. The full jitter of a retry may draw ~0
  // (outside tester: back 22 ms later), so a replacement waits the initial delay first, then the jittered backoff.
  if (reason === 'replaced') {
    const replacedAt = [...ctx.replacedAt, env.now].slice(-REPLACEMENTS_KEPT);
    const failures = Math.max(1, ctx.failures) + 1;
    const delayMs = env.backoff.initialMs + reconnectDelay(failures, env.backoff, env.random);
    return enter({ ...lost, replacedAt }, env, 'backoff', { failures }, [
      ...before,
      { type: 'scheduleBackoff', generation: ctx.generation, delayMs },
    ]);
  }
  // A short-lived connection is one more failure; a stable one lost starts over with an immediate retry.
  const stable = env.now - ctx.since >= env.stableAfterMs;
  return fail({ ...lost, failures: stable ? 0 : ctx.failures }, env, before);
}

function stop(ctx: SessionContext, env: SessionEnvironment): Transition {
  switch (ctx.state) {
    case 'stopped':
    case 'draining':
      return unchanged(ctx);
    case 'open':
      return enter(ctx, env, 'draining', { refreshing: false }, [{ type: 'stopWatchdogs' }, { type: 'drain' }]);
    default:
      // Bump the generation so a token or socket still in flight is ignored when it lands.
      return enter(ctx, env, 'stopped', { generation: ctx.generation + 1 }, [
        { type: 'cancelBackoff' },
        { type: 'closeSocket', reason: 'stopped' },
      ]);
  }
}

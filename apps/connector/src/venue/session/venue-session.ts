import { BehaviorSubject, filter, firstValueFrom, type Observable, Subject } from 'rxjs';
import { Actor } from '#actors';
import WebSocket from 'ws';
import type { SessionFailure, SessionState } from '#contracts';
import {
  type ClientMessage,
  type DecodeResult,
  decodeServiceFrame,
  encodeClientMessage,
  VenueAuthError,
} from '#venue-api';
import { LogThrottle, type JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../clock.js';
import type { FrameDecoder, FrameListener } from '../frames/service-frame.js';
import type { TokenSource } from '../rest/venue-sources.js';
import { socketFailure, socketRefusal, tokenFailure } from './session-failure.js';
import type { ResolvedVenueOptions } from '../venue-options.js';
import type { VenueMetrics } from '../venue-metrics.js';
import {
  CONTESTED_AFTER,
  initialSessionContext,
  type LossReason,
  type SessionContext,
  type SessionEffect,
  type SessionEnvironment,
  type SessionEvent,
  replacementsSince,
  transition,
} from './session-machine.js';

/** The session-machine's effects, plus announcing a state change once the effects before it have run. */
type SessionStep =
  | SessionEffect
  | { type: 'announce'; from: SessionContext['state']; to: SessionContext['state']; event: SessionEvent['type'] };

/** The pure transition of session-machine.ts as the actor runtime's transition (still pure). */
function sessionTransition(ctx: SessionContext, event: SessionEvent, env: SessionEnvironment) {
  const { context, effects } = transition(ctx, event, env);
  if (context.state === ctx.state) return { state: context, effects };
  const announce: SessionStep = { type: 'announce', from: ctx.state, to: context.state, event: event.type };
  return { state: context, effects: [...effects, announce] };
}
import { connectUrl, safeReason } from './socket-url.js';

/** A venue-supplied string for a log line: never unbounded (a hostile frame could carry megabytes). */
function bounded(value: string | undefined, max: number): string | undefined {
  if (value === undefined || value.length <= max) return value;
  return `${value.slice(0, max)}…(+${value.length - max} chars)`;
}

export type ConnectionEvent = { up: true; generation: number } | { up: false; reason: LossReason | 'stop' };

export interface VenueSessionDeps {
  decode?: FrameDecoder;
  random?: () => number;
  /** Socket factory (tests may wrap it); the URL carries the token: it must not be logged. */
  createSocket?: (url: string) => WebSocket;
}

const CLOSE_WAIT_MS = 1_000;
/** How often a frame type the spec does not show is logged again (with how many were held back). */
const UNKNOWN_TYPE_LOG_EVERY_MS = 10 * 60_000;
/** A frame type named in a log line is cut to this many characters (it is the venue's text). */
const MAX_LOGGED_TYPE = 64;

/**
 * The actor owning THE venue WebSocket of the account, on the actor runtime of libs/actors: every event
 * (start, stop, token, socket, timers) goes through its mailbox into the pure `transition` of
 * session-machine.ts; this class only executes the effects. Two reads bypass the mailbox because they
 * change nothing: `send` (checks the state and writes to the open socket) and the frame path (frames are
 * decoded on the socket's own tick and handed synchronously to the listeners: the price hot path has no
 * extra hop).
 */
export class VenueSession {
  private readonly actor: Actor<SessionContext, SessionEvent, SessionStep, SessionEnvironment>;
  private readonly stateSubject: BehaviorSubject<{ state: SessionState; since: number }>;
  /** The last token or socket failure since the session was last open (`lastFailure`). */
  private failure: string | undefined;
  /** The same as a bounded code and reason, for the connector status (`lastFailureSummary`). */
  private failureSummary: SessionFailure | undefined;
  private readonly connectionSubject = new Subject<ConnectionEvent>();
  private readonly listeners: FrameListener[] = [];
  private readonly drainHooks: Array<() => Promise<void>> = [];
  private readonly decode: FrameDecoder;
  private readonly random: () => number;
  private readonly createSocket: (url: string) => WebSocket;
  private readonly log: JsonLogger;

  private socket: WebSocket | undefined;
  private socketGeneration = -1;
  private openGeneration: number | undefined;
  private lastFrameAt = 0;
  /**
   * Frames of a type the spec does not show (§4.2: may be routine; the sandbox sends `heartbeat` and `venueStatus`,
   * spec-gaps W30): one line per type per interval, saying how many were held back — not one per frame.
   */
  private readonly unknownTypeLog: LogThrottle;
  /** Generation of the connection that carried an error frame saying its session was replaced (W19). */
  private replacedNoticeOn: number | undefined;
  private lastMessageAt = 0;
  private trafficExpected: () => boolean = () => false;
  private cancelBackoff: Cancel | undefined;
  private cancelWatchdogs: Cancel[] = [];

  readonly state$: Observable<{ state: SessionState; since: number }>;
  /** Up with the connection's generation once it is open; down whenever it is left. */
  readonly connection$: Observable<ConnectionEvent>;

  constructor(
    private readonly options: ResolvedVenueOptions,
    private readonly tokens: TokenSource,
    private readonly metrics: VenueMetrics,
    logger: JsonLogger,
    private readonly clock: VenueClock,
    deps: VenueSessionDeps = {},
  ) {
    this.log = logger.child('VenueSession');
    this.unknownTypeLog = new LogThrottle(UNKNOWN_TYPE_LOG_EVERY_MS, () => clock.now());
    this.decode = deps.decode ?? decodeServiceFrame;
    this.random = deps.random ?? Math.random;
    this.createSocket = deps.createSocket ?? ((url) => new WebSocket(url, { perMessageDeflate: false }));
    const initial = initialSessionContext(clock.now());
    this.stateSubject = new BehaviorSubject({ state: initial.state, since: initial.since });
    this.state$ = this.stateSubject.asObservable();
    this.connection$ = this.connectionSubject.asObservable();
    this.actor = new Actor({
      name: 'venue-session',
      initial,
      transition: sessionTransition,
      environment: () => ({
        now: this.clock.now(),
        random: this.random(),
        backoff: this.options.reconnect,
        stableAfterMs: this.options.stableConnectionMs,
      }),
      execute: (effect) => this.execute(effect),
      onError: (error, where) =>
        this.log.error('session effect failed', { effect: where.effect?.type, reason: safeReason(error) }),
    });
    metrics.watchSessionReplacements(() => this.recentReplacements().count);
  }

  private get context(): SessionContext {
    return this.actor.state;
  }

  private post(event: SessionEvent): void {
    this.actor.send(event);
  }

  start(): void {
    this.post({ type: 'start' });
  }

  /** Drains (stop sending, orderUnsubscribes finished, bounded by drainTimeoutMs), closes, then resolves. */
  async stop(): Promise<void> {
    this.post({ type: 'stop' });
    await firstValueFrom(this.stateSubject.pipe(filter((s) => s.state === 'stopped')));
  }

  get state(): SessionState {
    return this.context.state;
  }

  get reconnects(): number {
    return this.context.reconnects;
  }

  /** Why the last attempt to open the session failed (token or socket; bounded, never a secret), until it opens. */
  get lastFailure(): string | undefined {
    return this.failure;
  }

  /** The last failure as a code and a reason the gateway made (ConnectorStatus.lastFailure), until it opens. */
  get lastFailureSummary(): SessionFailure | undefined {
    return this.failureSummary;
  }

  private warnIfContested(): void {
    const recent = this.recentReplacements();
    if (recent.count < CONTESTED_AFTER) return;
    this.log.error('venue session contested: another client connects with this VENUE_SESSION_ID', {
      replaced: recent.count,
      withinMs: recent.windowMs,
      action:
        'run one connector per venue account; find the other holder (docs/runbook.md#gatewayvenuesessioncontested)',
    });
  }

  /**
   * How many times the venue closed this session's connection for another with our sessionId within the
   * contested window (`sessionContestedWindowMs`); CONTESTED_AFTER or more: another client uses the session id.
   */
  recentReplacements(): { count: number; windowMs: number } {
    const windowMs = this.options.sessionContestedWindowMs;
    return { count: replacementsSince(this.context, this.clock.now() - windowMs), windowMs };
  }

  /** Generation of the open connection, or undefined when none is open. */
  get openConnection(): number | undefined {
    return this.openGeneration;
  }

  get isOpen(): boolean {
    return this.openGeneration !== undefined;
  }

  addFrameListener(listener: FrameListener): void {
    this.listeners.push(listener);
  }

  /** Run while draining, before the socket closes (e.g. finishing orderUnsubscribes). */
  addDrainHook(hook: () => Promise<void>): void {
    this.drainHooks.push(hook);
  }

  /** When true, silence on an open socket (no message at all) means a stall even if pongs still arrive. */
  setTrafficExpectation(expected: () => boolean): void {
    this.trafficExpected = expected;
  }

  /**
   * Sends one message on the open connection. Callers pass the outbound limiter first. While draining
   * only `orderUnsubscribe` may leave. False when nothing was sent.
   */
  send(message: ClientMessage): boolean {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return false;
    const state = this.context.state;
    if (state !== 'open' && !(state === 'draining' && message.messageType === 'orderUnsubscribe')) return false;
    socket.send(encodeClientMessage(message)); // the codec's checks run on the wire
    return true;
  }

  private async execute(effect: SessionStep): Promise<void> {
    switch (effect.type) {
      case 'announce':
        // After the effects before it ran, so an observer that sees `open` can send at once.
        this.metrics.setSessionState(effect.to);
        this.log.info('session state', { from: effect.from, to: effect.to, event: effect.event });
        if (effect.to === 'open') {
          this.failure = undefined;
          this.failureSummary = undefined;
        }
        this.stateSubject.next({ state: this.context.state, since: this.context.since });
        return;
      case 'fetchToken':
        this.fetchToken(effect.generation);
        return;
      case 'openSocket':
        await this.closeSocket('superseded');
        this.openSocket(effect.generation, effect.token);
        return;
      case 'closeSocket':
        await this.closeSocket(effect.reason);
        return;
      case 'scheduleBackoff':
        this.cancelBackoff?.();
        this.log.warn('reconnect backing off', { delayMs: effect.delayMs, failures: this.context.failures });
        this.cancelBackoff = this.clock.setTimeout(
          () => this.post({ type: 'backoffElapsed', generation: effect.generation }),
          effect.delayMs,
        );
        return;
      case 'cancelBackoff':
        this.cancelBackoff?.();
        this.cancelBackoff = undefined;
        return;
      case 'startWatchdogs':
        this.startWatchdogs(effect.generation);
        return;
      case 'stopWatchdogs':
        for (const cancel of this.cancelWatchdogs) cancel();
        this.cancelWatchdogs = [];
        return;
      case 'scheduleRefresh':
        this.cancelWatchdogs.push(
          this.clock.setTimeout(() => this.post({ type: 'refreshDue', generation: effect.generation }), effect.delayMs),
        );
        return;
      case 'connectionUp':
        this.openGeneration = effect.generation;
        this.connectionSubject.next({ up: true, generation: effect.generation });
        return;
      case 'connectionDown':
        if (this.openGeneration === undefined && effect.reason !== 'stop') return;
        this.openGeneration = undefined;
        this.connectionSubject.next({ up: false, reason: effect.reason });
        return;
      case 'countReconnect':
        this.metrics.reconnects.inc({ reason: effect.reason });
        this.log.warn('venue connection lost; reconnecting', { reason: effect.reason });
        if (effect.reason === 'replaced') this.warnIfContested();
        return;
      case 'drain':
        void this.drain();
        return;
    }
  }

  private fetchToken(generation: number): void {
    const started = performance.now();
    this.tokens.fetchToken().then(
      (token) => {
        this.metrics.tokenFetchSeconds.observe({ result: 'ok' }, (performance.now() - started) / 1000);
        this.post({ type: 'tokenFetched', generation, token });
      },
      (error: unknown) => {
        this.metrics.tokenFetchSeconds.observe({ result: 'error' }, (performance.now() - started) / 1000);
        // a refused signature says nothing of why: the settings that make it are named (outside tester)
        const reason =
          error instanceof VenueAuthError
            ? `${safeReason(error)} — check VENUE_API_KEY, VENUE_API_SECRET, VENUE_SIGNATURE_ENCODING (base64 or hex) and this host's clock`
            : safeReason(error);
        this.log.warn('token fetch failed', { reason });
        this.failure = `token fetch: ${reason}`.slice(0, 200);
        this.failureSummary = tokenFailure(error, this.clock.now());
        this.post({ type: 'tokenFailed', generation, reason });
      },
    );
  }

  private openSocket(generation: number, token: string): void {
    let socket: WebSocket;
    try {
      socket = this.createSocket(connectUrl(this.options.wsUrl, token, this.options.sessionId));
    } catch (error) {
      this.post({ type: 'socketFailed', generation, reason: safeReason(error) });
      return;
    }
    this.socket = socket;
    this.socketGeneration = generation;
    let opened = false;
    let refused = false;
    socket.on('open', () => {
      opened = true;
      this.lastFrameAt = this.clock.now();
      this.lastMessageAt = this.lastFrameAt;
      this.post({ type: 'socketOpened', generation });
    });
    // W2: a refused token is a non-101 answer; ws reports it here. Only the status is logged.
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      refused = true;
      response.resume();
      this.log.warn('venue refused the connection', { status });
      socket.terminate();
      this.failure = `socket refused: HTTP ${status}`;
      this.failureSummary = socketRefusal(status, this.clock.now());
      this.post({ type: 'socketFailed', generation, reason: `HTTP ${status}` });
    });
    socket.on('error', (error) => {
      const reason = safeReason(error);
      this.log.warn('venue socket error', { reason });
      if (opened) return;
      // a refusal told by its status just before (unexpected-response) is the better reason: kept
      if (!refused) this.failureSummary = socketFailure(error, this.clock.now());
      this.post({ type: 'socketFailed', generation, reason });
    });
    socket.on('close', (code, reasonBuffer) => {
      const replacedNotice = this.replacedNoticeOn === generation;
      this.post({ type: 'socketClosed', generation, code, reason: reasonBuffer.toString(), replacedNotice });
    });
    socket.on('pong', () => {
      this.lastFrameAt = this.clock.now();
    });
    socket.on('message', (data: WebSocket.RawData) => this.onFrame(data));
  }

  /** Hot path: every venue frame. */
  private onFrame(data: WebSocket.RawData): void {
    const arrivedAt = performance.now();
    const now = this.clock.now();
    this.lastFrameAt = now;
    this.lastMessageAt = now;
    const decoded = this.decode(data);
    if (decoded.kind !== 'message') {
      this.metrics.framesRejected.inc({ reason: decoded.kind === 'unknown' ? 'unknown_type' : 'invalid' });
      this.logRejected(decoded);
      return;
    }
    const message = decoded.message;
    if (decoded.oddities !== undefined) {
      this.metrics.frameOddities.inc({ messageType: message.messageType });
      this.log.warn('venue frame accepted without odd fields', {
        messageType: message.messageType,
        oddities: decoded.oddities,
      });
    }
    if (message.messageType === 'error') {
      const code = bounded(message.code, 64);
      const text = bounded(message.message, 200);
      this.metrics.countErrorFrame(message.code);
      this.log.warn('venue error frame', { code, message: text });
      if (/replaced/i.test(`${code} ${text}`)) this.replacedNoticeOn = this.socketGeneration;
    }
    for (let i = 0; i < this.listeners.length; i++) {
      const listener = this.listeners[i];
      if (listener === undefined) continue;
      try {
        listener(message, arrivedAt);
      } catch (error) {
        this.log.error('frame listener failed', { messageType: message.messageType, reason: safeReason(error) });
      }
    }
  }

  /**
   * The frame itself is never logged (it could carry anything); its kind, reason and type (at most 64
   * characters) are. Frames of an unknown type may be routine (§4.2): one line per type per interval.
   */
  private logRejected(decoded: Exclude<DecodeResult, { kind: 'message' }>): void {
    const messageType = decoded.messageType?.slice(0, MAX_LOGGED_TYPE);
    if (decoded.kind === 'invalid') {
      this.log.warn('venue frame rejected', { reason: 'invalid', detail: decoded.reason.slice(0, 200), messageType });
      return;
    }
    const fields = this.unknownTypeLog.pass(messageType ?? '', { reason: 'unknown_type', messageType });
    if (fields !== undefined) this.log.warn('venue frame of unknown type ignored', fields);
  }

  private startWatchdogs(generation: number): void {
    const stall = this.options.stallTimeoutMs;
    const period = Math.max(5, Math.floor(stall / 4));
    this.cancelWatchdogs.push(
      this.clock.setInterval(() => {
        const now = this.clock.now();
        const silentFor = now - this.lastFrameAt;
        const noMessagesFor = now - this.lastMessageAt;
        if (silentFor > stall || (noMessagesFor > stall && this.trafficExpected())) {
          this.log.warn('venue connection stalled', { silentMs: silentFor, noMessagesMs: noMessagesFor });
          this.post({ type: 'stalled', generation });
          return;
        }
        const socket = this.socket;
        if (socket !== undefined && socket.readyState === WebSocket.OPEN && now - this.lastFrameAt >= period) {
          socket.ping();
        }
      }, period),
    );
    this.cancelWatchdogs.push(
      this.clock.setTimeout(() => this.post({ type: 'refreshDue', generation }), this.options.connectionMaxAgeMs),
    );
  }

  private async closeSocket(reason: string): Promise<void> {
    const socket = this.socket;
    if (socket === undefined) return;
    this.socket = undefined;
    this.socketGeneration = -1;
    socket.removeAllListeners();
    socket.on('error', () => undefined);
    if (socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        cancel();
        resolve();
      };
      const cancel = this.clock.setTimeout(() => {
        socket.terminate();
        resolve();
      }, CLOSE_WAIT_MS);
      socket.once('close', done);
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, reason.slice(0, 100));
    });
  }

  private async drain(): Promise<void> {
    const hooks = Promise.allSettled(this.drainHooks.map((hook) => hook()));
    await new Promise<void>((resolve) => {
      const cancel = this.clock.setTimeout(resolve, this.options.drainTimeoutMs);
      void hooks.then(() => {
        cancel();
        resolve();
      });
    });
    this.post({ type: 'drained' });
  }

  /** Releases the mailbox (after `stop`). */
  dispose(): void {
    void this.actor.stop();
  }

  /** For diagnostics and tests: the generation of the socket currently held (−1 when none). */
  get heldSocketGeneration(): number {
    return this.socketGeneration;
  }
}

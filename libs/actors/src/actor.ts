import { BehaviorSubject, type Observable } from 'rxjs';

/** What a transition decides: the next state and the effects the runtime must execute, in order. */
export interface Transition<S, F> {
  readonly state: S;
  readonly effects: readonly F[];
}

/**
 * The whole behaviour of an actor: pure, no I/O, no timers, no clock reads. Time and randomness come in
 * through `env`, which the runtime samples once per event, so a transition is a function of its inputs
 * and is unit-tested by calling it.
 */
export type TransitionFn<S, E, F, Env> = (state: S, event: E, env: Env) => Transition<S, F>;

/** The only handle other parts get: they talk to an actor by sending it events. */
export interface ActorRef<E> {
  send(event: E): void;
}

export interface ActorOptions<S, E, F, Env> {
  /** For logs and errors. */
  readonly name: string;
  readonly initial: S;
  readonly transition: TransitionFn<S, E, F, Env>;
  /** Sampled once per event (e.g. `{ now: clock.now() }`). */
  readonly environment: () => Env;
  /**
   * Executes one effect. A returned promise is awaited before the next effect and the next event: an
   * effect such as "close the socket" completes before anything else happens to this actor. Results come
   * back as events sent to `self`.
   */
  readonly execute: (effect: F, self: ActorRef<E>) => void | Promise<void>;
  /** A transition or effect that threw. The actor goes on with the next event; the default rethrows nothing. */
  readonly onError?: (error: unknown, where: { event?: E; effect?: F }) => void;
}

/**
 * One actor: a mailbox in front of a pure transition function, whose effects this runtime executes.
 * Events are handled one at a time in arrival order. While effects are synchronous the mailbox drains in
 * the caller's turn (no promise, no allocation per event beyond the transition's own), so an actor can sit
 * on a hot path such as a price stream; an asynchronous effect parks the mailbox until it settles.
 * This is the `Subject` + `concatMap` shape of the architecture, without a promise per event.
 */
export class Actor<S, E, F, Env> implements ActorRef<E> {
  private readonly queue: E[] = [];
  private head = 0;
  /** Events waiting in `queue` (kept apart so an idle actor's event never touches the array). */
  private backlog = 0;
  private draining = false;
  private closed = false;
  private current: S;
  /** Made when `state$` is first read: an actor nobody observes (a price stream) keeps no subject. */
  private states: BehaviorSubject<S> | undefined;
  private idleWaiters: Array<() => void> = [];
  /** The options' functions, kept on the actor: a hot path touches one object per event, not two. */
  private readonly transition: TransitionFn<S, E, F, Env>;
  private readonly environment: () => Env;
  private readonly execute: (effect: F, self: ActorRef<E>) => void | Promise<void>;
  private readonly onError: ((error: unknown, where: { event?: E; effect?: F }) => void) | undefined;
  /** The effects of the event being handled, and the next one to execute. */
  private effects: readonly F[] = NO_EFFECTS;
  private effectIndex = 0;
  private event: E | undefined;

  constructor(private readonly options: ActorOptions<S, E, F, Env>) {
    this.current = options.initial;
    this.transition = options.transition;
    this.environment = options.environment;
    this.execute = options.execute;
    this.onError = options.onError;
  }

  get name(): string {
    return this.options.name;
  }

  get state(): S {
    return this.current;
  }

  /** Every state the actor enters, starting with the current one. Completes when the actor stops. */
  get state$(): Observable<S> {
    if (this.states === undefined) {
      this.states = new BehaviorSubject(this.current);
      if (this.closed) this.states.complete();
    }
    return this.states.asObservable();
  }

  /** True once `stop()` was called: events sent after it are dropped. */
  get isStopped(): boolean {
    return this.closed;
  }

  send(event: E): void {
    if (this.closed) return;
    if (this.draining) {
      this.queue.push(event);
      this.backlog += 1;
      return;
    }
    // Idle mailbox (the usual case on a hot path): the event is handled at once, without the queue.
    this.draining = true;
    this.take(event);
    this.drain();
  }

  /** Resolves once the mailbox is empty and no effect is running. */
  idle(): Promise<void> {
    if (!this.draining && this.backlog === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes no more events; resolves after those already in the mailbox are handled. */
  async stop(): Promise<void> {
    await this.idle();
    if (this.closed) return;
    this.closed = true;
    this.states?.complete();
  }

  /**
   * Handles the mailbox in the caller's turn — no promise unless an effect returns one: then the mailbox
   * parks (still draining) and goes on from the next effect once it settles.
   */
  private drain(): void {
    this.draining = true;
    for (;;) {
      while (this.effectIndex < this.effects.length) {
        const effect = this.effects[this.effectIndex] as F;
        this.effectIndex += 1;
        let pending: void | Promise<void>;
        try {
          pending = this.execute(effect, this);
        } catch (error) {
          this.onError?.(error, { event: this.event, effect });
          continue;
        }
        if (pending !== undefined) {
          pending.then(
            () => this.drain(),
            (error: unknown) => {
              this.onError?.(error, { event: this.event, effect });
              this.drain();
            },
          );
          return;
        }
      }
      if (this.backlog === 0) break;
      const event = this.queue[this.head] as E;
      this.head += 1;
      this.backlog -= 1;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.take(event);
    }
    if (this.head > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
    this.effects = NO_EFFECTS;
    this.event = undefined;
    this.draining = false;
    if (this.idleWaiters.length > 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Runs the transition for `event`; its effects are executed next by `drain`. */
  private take(event: E): void {
    this.event = event;
    this.effectIndex = 0;
    try {
      const next = this.transition(this.current, event, this.environment());
      this.effects = next.effects;
      if (next.state !== this.current) {
        this.current = next.state;
        if (this.states !== undefined) this.states.next(next.state);
      }
    } catch (error) {
      this.effects = NO_EFFECTS;
      this.onError?.(error, { event });
    }
  }
}

const NO_EFFECTS: readonly never[] = [];

import { reconnectDelay, systemClock, type BackoffPolicy, type Cancel, type Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { BusMetrics } from './bus-metrics.js';

/**
 * Why the process declares its topology again: NATS came back, a JetStream publish found no stream, or the
 * periodic check (something deleted while this process stayed connected: an operator, a lost replica).
 */
export const REDECLARE_TRIGGERS = ['reconnect', 'no_stream', 'check'] as const;
export type RedeclareTrigger = (typeof REDECLARE_TRIGGERS)[number];

/**
 * Which stream a declaration found on the server: its name and when the server created it. A stream (or a KV
 * bucket's stream) found with another creation time than before was declared afresh: the server lost it and what
 * it held — whoever created it again (this process, another one, or an app reading it at that moment).
 */
export interface StreamIdentity {
  stream: string;
  /** The server's creation time of the stream (ISO; `StreamInfo.created`). */
  created: string;
  /**
   * A memory stream is lost with its server by design (its owners publish its messages again): one declared
   * afresh is logged, not counted as a store lost.
   */
  storage: 'file' | 'memory';
}

/** One thing this process declared on JetStream, and how to declare it again (idempotent: create or update). */
export interface Declaration {
  kind: 'stream' | 'bucket' | 'consumer';
  name: string;
  /** A stream declared as "whichever captures its subjects": the name of the one that does now (for metrics). */
  current?: () => string;
  /** The consumer's stream. */
  stream?: string;
  /** The stream (a bucket's `KV_…`) as first declared, when known: a later declaration finding another is a loss. */
  identity?: StreamIdentity;
  /** Declares it again; a stream or bucket says which stream it found or created (a consumer says nothing). */
  declare: () => Promise<StreamIdentity | void>;
}

/** A loss of stored state: streams this process had used, found declared afresh, and when the last was. */
export interface StoreLoss {
  /** Epoch ms of the last loss found. */
  at: number;
  /** The streams found declared afresh, in the order found, each within `storeLossToldMs` of the next. */
  streams: string[];
}

export interface DeclaredTopologyOptions {
  /** Backoff between failed passes: the first retry at once, then full jitter up to the cap. */
  backoff?: BackoffPolicy;
  /** Least time between two passes started by a "no stream" answer (ms): publishes fail in bursts. */
  noStreamIntervalMs?: number;
  /**
   * How often everything is checked while connected (ms; 0: never). A check reads each declaration (a stream,
   * bucket or consumer info) and creates only what is gone. Default 15 s.
   */
  checkIntervalMs?: number;
  /** How long after the last loss of a stream the loss is told (`storeLoss`, the `nats` health detail); 1 h. */
  storeLossToldMs?: number;
  clock?: Clock;
  random?: () => number;
}

const DEFAULT_CHECK_INTERVAL_MS = 15_000;
const DEFAULT_STORE_LOSS_TOLD_MS = 3_600_000;

/** How many missing names a log line lists. */
const LOGGED_NAMES = 10;

/**
 * What this process declared on JetStream — its streams, KV buckets and durable consumers, in the order it
 * declared them — kept so it can declare them again when the server may have lost them: after every
 * reconnection (a nats-server restarted with an empty store, a memory stream lost with its node), when a
 * JetStream publish is answered "no stream" (503, no responders), and every `checkIntervalMs` while connected
 * (a consumer deleted under a running process is not noticed by the client otherwise). A pass declares everything again in order
 * (streams before the consumers on them); what fails is retried with backoff until it holds or the connection
 * drops (the next reconnection starts a new pass). Counted in `bus_topology_redeclarations_total` and
 * `bus_topology_missing`; logged once per episode (a warning at the first failure, a line when whole again).
 *
 * Each stream and bucket is known by its server's creation time. A file-stored one found with another (declared
 * afresh by anyone: this pass, another process, an app opening it meanwhile) was lost with what it held: an error
 * is logged, `bus_streams_lost_total{stream}` counts it, and `storeLoss` tells it for `storeLossToldMs` (the
 * `nats` health detail). Nothing else can tell: the stream is there again, empty, and everything else reads "ok".
 * A memory stream declared afresh is only logged: it is lost at every restart of its server by design.
 *
 * `BusStreams`, `BusKv` and `BusConsumers` record here what they declare; apps do nothing more.
 */
export class DeclaredTopology {
  private readonly declarations = new Map<string, Declaration>();
  /** The stream each stream or bucket declaration last found, by declaration. */
  private readonly identities = new Map<string, StreamIdentity>();
  private lost: StoreLoss | undefined;
  private running: Promise<void> | undefined;
  private again: RedeclareTrigger | undefined;
  private lastNoStreamPass = Number.NEGATIVE_INFINITY;
  private stopped = false;
  private cancelWait: (() => void) | undefined;
  private readonly cancelCheck: Cancel | undefined;
  private readonly clock: Clock;

  constructor(
    private readonly metrics: BusMetrics,
    private readonly logger: JsonLogger,
    private readonly isUp: () => boolean,
    private readonly options: DeclaredTopologyOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    const checkMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
    if (checkMs > 0) this.cancelCheck = this.clock.setInterval(() => this.isUp() && this.redeclare('check'), checkMs);
  }

  /** Records a declaration that held (a later one of the same thing replaces it, keeping its place). */
  keep(declaration: Declaration): void {
    const key = keyOf(declaration);
    this.declarations.set(key, declaration);
    if (declaration.identity !== undefined) this.found(key, declaration.identity);
  }

  /** Stops declaring it again (a consumer this process stopped). */
  forget(declaration: Pick<Declaration, 'kind' | 'name' | 'stream'>): void {
    const key = keyOf(declaration);
    this.declarations.delete(key);
    this.identities.delete(key);
  }

  /** The streams found declared afresh, while the last loss is recent (`storeLossToldMs`); else undefined. */
  get storeLoss(): StoreLoss | undefined {
    const toldMs = this.options.storeLossToldMs ?? DEFAULT_STORE_LOSS_TOLD_MS;
    if (this.lost === undefined || this.clock.now() - this.lost.at >= toldMs) return undefined;
    return { at: this.lost.at, streams: [...this.lost.streams] };
  }

  /** The streams this process declared. */
  get streams(): string[] {
    return [...this.declarations.values()].filter((d) => d.kind === 'stream').map((d) => d.current?.() ?? d.name);
  }

  /** The durable consumers this process declared, with their streams. */
  get consumers(): { stream: string; consumer: string }[] {
    return [...this.declarations.values()]
      .filter((d) => d.kind === 'consumer')
      .map((d) => ({ stream: d.stream ?? '', consumer: d.name }));
  }

  /** Declares everything again (a pass already running absorbs a "no stream"; a reconnect runs one more after). */
  redeclare(trigger: RedeclareTrigger): void {
    if (this.stopped || this.declarations.size === 0) return;
    if (this.running !== undefined) {
      if (trigger === 'reconnect') this.again = trigger; // a check or "no stream" is absorbed by the running pass
      return;
    }
    if (trigger === 'no_stream') {
      const now = this.clock.now();
      if (now - this.lastNoStreamPass < (this.options.noStreamIntervalMs ?? 5_000)) return;
      this.lastNoStreamPass = now;
    }
    this.running = this.pass(trigger).finally(() => {
      this.running = undefined;
      const again = this.again;
      this.again = undefined;
      if (again !== undefined) this.redeclare(again);
    });
  }

  /** Resolves once no pass is running (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** No pass starts from now on; a waiting retry is dropped. */
  stop(): void {
    this.stopped = true;
    this.cancelWait?.();
    this.cancelCheck?.();
  }

  private async pass(trigger: RedeclareTrigger): Promise<void> {
    let pending = [...this.declarations.values()];
    for (let failures = 0; ;) {
      if (this.stopped || !this.isUp()) return; // the next reconnection starts a new pass
      const failed: Declaration[] = [];
      let lastError: unknown;
      for (const declaration of pending) {
        try {
          const identity = await declaration.declare();
          if (identity) this.found(keyOf(declaration), identity);
        } catch (error) {
          failed.push(declaration);
          lastError = error;
        }
      }
      this.metrics.topologyMissing.set(failed.length);
      this.metrics.topologyRedeclarations.inc({ trigger, result: failed.length === 0 ? 'ok' : 'failed' });
      if (failed.length === 0) {
        if (failures > 0 || trigger === 'reconnect') {
          this.logger.info('NATS topology declared again', { trigger, declarations: this.declarations.size });
        }
        return;
      }
      failures += 1;
      // A check is only a look: what it could not read or declare is left to the next check (15 s on), not
      // retried at once — on a cluster electing leaders, retries would add to the requests it is slow to answer.
      if (trigger === 'check') return;
      if (failures === 1) {
        this.logger.warn('could not declare the NATS topology again; retrying with backoff', {
          trigger,
          missing: failed.slice(0, LOGGED_NAMES).map((d) => `${d.kind} ${d.name}`),
          error: lastError instanceof Error ? lastError.message : String(lastError),
        });
      }
      pending = failed;
      const policy = this.options.backoff ?? { initialMs: 200, maxMs: 5_000 };
      await this.wait(reconnectDelay(failures, policy, (this.options.random ?? Math.random)()));
    }
  }

  /** A declaration found its stream: another one than before (or the same name created again) is a loss. */
  private found(key: string, identity: StreamIdentity): void {
    // the series exists before its first loss (an alert on its increase sees the first one)
    if (identity.storage === 'file') this.metrics.streamsLost.inc({ stream: identity.stream }, 0);
    const before = this.identities.get(key);
    this.identities.set(key, identity);
    if (before === undefined || (before.stream === identity.stream && before.created === identity.created)) return;
    // (a stream captured by another process's gone: it no longer captures, this one does now — the other was lost)
    const { stream } = before;
    if (before.storage === 'memory') {
      this.logger.info('a memory stream was declared afresh (its messages went with the server)', { stream });
      return;
    }
    this.metrics.streamsLost.inc({ stream });
    const streams = this.storeLoss?.streams.filter((s) => s !== stream) ?? []; // of this episode (within the hour)
    this.lost = { at: this.clock.now(), streams: [...streams, stream] };
    this.logger.error('a stream this process had used was declared afresh: NATS lost it and everything it held', {
      stream,
      createdBefore: before.created,
      createdNow: identity.created,
      ...(identity.stream !== stream ? { capturedNowBy: identity.stream } : {}),
    });
  }

  private wait(delayMs: number): Promise<void> {
    if (delayMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const cancel: Cancel = this.clock.setTimeout(resolve, delayMs);
      this.cancelWait = () => {
        cancel();
        resolve();
      };
    });
  }
}

/**
 * A JetStream publish answered "no stream captures this subject" (503, no responders): the client calls it
 * `JetStreamNotEnabled` (not exported by the package, so known by its name).
 */
export function isNoStreamAnswer(error: unknown): boolean {
  return error instanceof Error && error.name === 'JetStreamNotEnabled';
}

function keyOf(declaration: Pick<Declaration, 'kind' | 'name' | 'stream'>): string {
  return `${declaration.kind}\u0000${declaration.stream ?? ''}\u0000${declaration.name}`;
}

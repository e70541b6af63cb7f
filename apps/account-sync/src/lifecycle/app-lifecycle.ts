/**
 * The app's ordered start and stop. Each part registers itself (usually in its constructor or
 * `onModuleInit`) with a phase:
 *  - `store`: owns durable state others write into (the transaction ledger, withdrawal tracking, the
 *    sync's state stores). Started first, stopped last, so nothing in hand is lost.
 *  - `intake`: takes work from outside (the webhook receiver, the REST sync, the order-outcome consumer,
 *    withdrawal requests). Started last, stopped first: at SIGTERM it stops taking work, finishes or hands
 *    back what it has (bounded), and only then the stores close.
 * Within a phase, parts start in registration order and stop in reverse. The root module's hooks drive it
 * (after every provider exists; before the bus drains).
 *
 * Nothing starts before this instance holds the account's writer lease (`WriterGate`, lease/account-lease.ts):
 * held at once → the parts start before `start()` returns, as without a lease; held by another live instance
 * → `start()` returns (the app serves /health and /metrics as a standby) and the parts start when the lease is
 * taken. The lease is released after the stores stopped.
 *
 * The stop is bounded (`SHUTDOWN_WAIT_MS` for all parts together): a part still waiting for the venue then (a
 * withdrawal submit to a venue that does not answer) is left behind — what it held is recovered by the next start
 * exactly as after a crash (a submit in flight is adopted as unknown, never sent twice) — so a supervisor's stop
 * timeout is not hit and the process still exits 0.
 */
import type { JsonLogger, StartupProgress } from '#observability';

export type LifecyclePhase = 'store' | 'intake';

export interface LifecyclePart {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The account's writer lease as the lifecycle sees it. */
export interface WriterGate {
  /** Takes the lease ('held') or finds another live holder and waits in the background ('standby'). */
  begin(): Promise<'held' | 'standby'>;
  /** True once taken; false when released or stopped before. */
  whenHeld(): Promise<boolean>;
  /** Releases a held lease; stops waiting for one not held. */
  release(): Promise<void>;
}

/** No lease: every instance writes (unit tests of the lifecycle). */
const ALWAYS_HELD: WriterGate = {
  begin: () => Promise.resolve('held'),
  whenHeld: () => Promise.resolve(true),
  release: () => Promise.resolve(),
};

export class AppLifecycle {
  private readonly parts: Record<LifecyclePhase, LifecyclePart[]> = { store: [], intake: [] };
  private readonly started: LifecyclePart[] = [];
  private stopping = false;
  /** The parts' start after a standby took the lease. */
  private lateStart: Promise<void> | undefined;

  constructor(
    private readonly logger: JsonLogger,
    private readonly gate: WriterGate = ALWAYS_HELD,
    /** A part that fails to start after a standby took the lease: the app must stop (main: exit non-zero). */
    private readonly failStop: (reason: string) => void = () => undefined,
    /** SHUTDOWN_WAIT_MS: how long the parts together may take to stop. */
    private readonly stopWaitMs = 5_000,
    /** Told the step the start-up is in (/health while starting). */
    private readonly startup?: StartupProgress,
  ) {}

  register(phase: LifecyclePhase, part: LifecyclePart): void {
    this.parts[phase].push(part);
  }

  /**
   * Once the lease is held: stores, then intakes; a failing start stops what started, releases, rethrows — as a
   * `StartedUnderLeaseError`: the process was a writer, so it is never started again in-process (exit 75).
   */
  async start(): Promise<void> {
    this.startup?.enter('taking the account lease');
    if ((await this.gate.begin()) === 'held') {
      await this.startParts().catch(async (error: unknown) => {
        await this.gate.release();
        throw new StartedUnderLeaseError(error);
      });
      return;
    }
    void this.gate.whenHeld().then((held) => {
      if (!held || this.stopping) return;
      this.lateStart = this.startParts().catch((error: unknown) =>
        this.failStop(`a part failed to start after the lease was taken: ${messageOf(error)}`),
      );
    });
  }

  /** Every started part in reverse order of start, then the lease is released (last). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.lateStart;
    await this.stopParts();
    await this.gate.release();
  }

  private async startParts(): Promise<void> {
    const took: Record<string, number> = {};
    for (const part of [...this.parts.store, ...this.parts.intake]) {
      this.startup?.enter(`starting ${part.name}`);
      try {
        const at = Date.now();
        await part.start();
        took[part.name] = Date.now() - at;
        this.started.push(part);
      } catch (error) {
        this.logger.error('part failed to start', { part: part.name, error: messageOf(error) });
        await this.stopParts();
        throw error;
      }
    }
    // what a take-over waited for, part by part (ms), in start order
    this.logger.info('parts started', { tookMs: took });
  }

  /** One failing (or, past the shutdown wait, unfinished) stop does not keep the others running. */
  private async stopParts(): Promise<void> {
    const deadline = Date.now() + this.stopWaitMs;
    while (this.started.length > 0) {
      const part = this.started.pop() as LifecyclePart;
      try {
        const stopped = await settledWithin(part.stop(), Math.max(0, deadline - Date.now()));
        if (!stopped) {
          this.logger.warn('part did not stop within the shutdown wait; left to the next start to recover', {
            part: part.name,
            waitMs: this.stopWaitMs,
          });
        }
      } catch (error) {
        this.logger.error('part failed to stop cleanly', { part: part.name, error: messageOf(error) });
      }
    }
  }
}

/** Whether `work` settled within `ms` (its rejection is rethrown). */
async function settledWithin(work: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A start-up that failed after this instance took the writer lease. Never retried in the same process, whatever the
 * cause (`main.ts`): a part left running past the shutdown wait would write beside the next attempt's; a fresh
 * process (exit 75 when NATS caused it) takes the lease back instead.
 */
export class StartedUnderLeaseError extends Error {
  override readonly name = 'StartedUnderLeaseError';
  constructor(cause: unknown) {
    super(`start-up failed while holding the account lease: ${messageOf(cause)}`, { cause });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

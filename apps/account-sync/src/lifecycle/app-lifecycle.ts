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
 */
import type { JsonLogger } from '#observability';

export type LifecyclePhase = 'store' | 'intake';

export interface LifecyclePart {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export class AppLifecycle {
  private readonly parts: Record<LifecyclePhase, LifecyclePart[]> = { store: [], intake: [] };
  private readonly started: LifecyclePart[] = [];

  constructor(private readonly logger: JsonLogger) {}

  register(phase: LifecyclePhase, part: LifecyclePart): void {
    this.parts[phase].push(part);
  }

  /** Stores, then intakes; a failing start stops what already started (in reverse) and rethrows. */
  async start(): Promise<void> {
    for (const part of [...this.parts.store, ...this.parts.intake]) {
      try {
        await part.start();
        this.started.push(part);
      } catch (error) {
        this.logger.error('part failed to start', { part: part.name, error: messageOf(error) });
        await this.stop();
        throw error;
      }
    }
  }

  /** Every started part, in reverse order of start; one failing stop does not keep the others running. */
  async stop(): Promise<void> {
    while (this.started.length > 0) {
      const part = this.started.pop() as LifecyclePart;
      try {
        await part.stop();
      } catch (error) {
        this.logger.error('part failed to stop cleanly', { part: part.name, error: messageOf(error) });
      }
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import { systemClock, type Cancel, type Clock } from '#actors';
import type { BusConsumers, DurableConsumerHandle, DurableConsumerOptions } from './bus-consumers.js';

const RETRY_MS = 2_000;

export interface DurableFollowerOptions {
  consumers: BusConsumers;
  consumer: DurableConsumerOptions;
  /** Pause before attaching again while the stream cannot be consumed (not declared yet by its owner). Default 2 s. */
  retryMs?: number;
  clock?: Clock;
  /** Attached: the consumer is read from now on. */
  onAttached?: () => void;
  /** An attempt failed (the stream is not there yet, NATS is away); another follows after `retryMs`. */
  onWaiting?: (error: unknown) => void;
}

/**
 * A durable consumer of a stream another process declares, kept trying until it attaches: `start` returns at once,
 * `stop` cancels a pending attempt and stops a consumer that attached (its messages go back unhandled). The one
 * place for the attach-or-retry life an app's listener of another app's stream needs.
 */
export class DurableFollower {
  private handle: DurableConsumerHandle | undefined;
  private cancelRetry: Cancel | undefined;
  private stopped = true;
  private readonly clock: Clock;

  constructor(private readonly options: DurableFollowerOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get attached(): boolean {
    return this.handle !== undefined;
  }

  start(): void {
    this.stopped = false;
    void this.attach();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.stop();
  }

  private async attach(): Promise<void> {
    if (this.stopped) return;
    try {
      const handle = await this.options.consumers.consumeDurable(this.options.consumer);
      if (this.stopped) {
        await handle.stop(); // stopped while attaching
        return;
      }
      this.handle = handle;
      this.options.onAttached?.();
    } catch (error) {
      this.options.onWaiting?.(error);
      if (!this.stopped)
        this.cancelRetry = this.clock.setTimeout(() => void this.attach(), this.options.retryMs ?? RETRY_MS);
    }
  }
}

import { concatMap, from, tap, type Observable, type Subscription } from 'rxjs';
import { orderOutcomeMsgId, type OrderOutcome, type Subjects } from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import { isFinal, type OrderMarks } from './order-marks.js';

/**
 * Stores every order outcome in JetStream on `order.outcome.{clientRequestId}`, one at a time and in
 * order, with `Nats-Msg-Id` = clientRequestId:status (the stream drops a repeat inside its duplicate
 * window). The order mark remembers the last status published, so a redelivered or re-resolved outcome
 * is not published again even after the window; a publish that fails is retried until shutdown.
 */
export class OrderOutcomes {
  private subscription: Subscription | undefined;
  private readonly abort = new AbortController();
  private inFlight = 0;
  private idle: (() => void) | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly marks: OrderMarks,
    private readonly publisher: BusPublisher,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
  ) {}

  start(outcomes$: Observable<OrderOutcome>): void {
    this.subscription ??= outcomes$
      .pipe(
        // Counted on arrival, not when its turn comes: an outcome queued behind another is in hand too,
        // and stop() must wait for it.
        tap(() => (this.inFlight += 1)),
        concatMap((outcome) => from(this.publish(outcome).finally(() => this.settled()))),
      )
      .subscribe({
        error: (error: unknown) =>
          this.logger.error('order outcome stream ended with an error', { error: String(error) }),
      });
  }

  /** Waits (bounded) for outcomes already taken to be stored, then stops. */
  async stop(timeoutMs: number): Promise<void> {
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
    }
    this.abort.abort();
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** Publishes one outcome unless its order's mark shows it (or a final one) already published. */
  async publish(outcome: OrderOutcome): Promise<void> {
    const { clientRequestId, status } = outcome;
    let subject: string;
    try {
      subject = this.subjects.orderOutcome(clientRequestId);
    } catch (error) {
      this.logger.error('order outcome cannot form a subject; not published', {
        status,
        error: error instanceof Error ? error.message : String(error),
      });
      this.metrics.outcomesSkipped.inc({ reason: 'unroutable' });
      return;
    }
    try {
      const mark = await this.marks.get(clientRequestId);
      if (mark !== undefined && mark.status === status) {
        this.metrics.outcomesSkipped.inc({ reason: 'duplicate' });
        return;
      }
      if (mark !== undefined && isFinal(mark.status)) {
        this.metrics.outcomesSkipped.inc({ reason: 'after_final' });
        this.logger.warn('outcome after a final outcome ignored', { clientRequestId, status, final: mark.status });
        return;
      }
      await this.publisher.publishDurable(subject, outcome, {
        msgId: orderOutcomeMsgId(outcome),
        kind: 'order.outcome',
        attempts: Number.MAX_SAFE_INTEGER,
        retryDelayMs: 500,
        signal: this.abort.signal,
      });
      this.metrics.outcomesPublished.inc({ status });
      await this.marks.record(clientRequestId, status);
    } catch (error) {
      // Only at shutdown or with the KV unreachable: the mark stays unresolved and start-up reconciles it.
      this.metrics.outcomePublishFailures.inc();
      this.logger.error('order outcome not stored; it will be reconciled at the next start', {
        clientRequestId,
        status,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private settled(): void {
    this.inFlight -= 1;
    if (this.inFlight === 0) {
      this.idle?.();
      this.idle = undefined;
    }
  }
}

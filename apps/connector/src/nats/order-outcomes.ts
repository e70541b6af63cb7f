import { concatMap, from, merge, Subject, tap, type Observable, type Subscription } from 'rxjs';
import {
  contradicts,
  orderOutcomeMsgId,
  topicsOf,
  type OrderContradiction,
  type OrderOutcome,
  type Subjects,
  type Topic,
} from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import { isFinal, type OrderMarks } from './order-marks.js';

/**
 * Stores every order outcome in JetStream on `order.outcome.{clientRequestId}`, one at a time and in
 * order, with `Nats-Msg-Id` = clientRequestId:status (the stream drops a repeat inside its duplicate
 * window). The order mark remembers the last status published, so a redelivered or re-resolved outcome
 * is not published again even after the window; an outcome that cannot be stored (NATS or its KV
 * unreachable) is retried until it is, or until shutdown (then start-up reconciliation resolves it).
 */
export class OrderOutcomes {
  private subscription: Subscription | undefined;
  private readonly decided = new Subject<OrderOutcome>();
  private readonly abort = new AbortController();
  /**
   * Outcomes taken and not yet stored (or skipped), in arrival order, each with when it was taken: what a
   * shutdown would leave unstored, and what connector_order_outcome_oldest_unstored_seconds ages.
   */
  private readonly inHand = new Map<OrderOutcome, number>();
  private idle: (() => void) | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly marks: OrderMarks,
    private readonly publisher: BusPublisher,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
    /** Told of an outcome contradicting the final one its mark holds (K7: e.g. a redelivery after a restart). */
    private readonly contradictions?: { add(contradiction: OrderContradiction): void },
  ) {
    metrics.watchUnstoredOutcomes(() => ({
      count: this.inHand.size,
      oldestSinceMs: this.inHand.values().next().value,
    }));
  }

  start(outcomes$: Observable<OrderOutcome>): void {
    this.subscription ??= merge(outcomes$, this.decided)
      .pipe(
        // Counted on arrival, not when its turn comes: an outcome queued behind another is in hand too,
        // and stop() must wait for it.
        tap((outcome) => this.inHand.set(outcome, Date.now())),
        concatMap((outcome) => from(this.publish(outcome).finally(() => this.settled(outcome)))),
      )
      .subscribe({
        error: (error: unknown) =>
          this.logger.error('order outcome stream ended with an error', { error: String(error) }),
      });
  }

  /**
   * An outcome the gateway decided itself (a refused or certainly unsent command), stored in turn with the
   * venue's. The caller does not wait: storing retries while NATS is away, and a command handler held
   * that long would hold the shutdown too (stop() bounds the wait for what is queued).
   */
  add(outcome: OrderOutcome): void {
    this.decided.next(outcome);
  }

  /** Waits (bounded) for outcomes already taken to be stored, then stops. */
  async stop(timeoutMs: number): Promise<void> {
    if (this.inHand.size > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
    }
    this.abort.abort();
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    // every one still in hand — the one being stored and those queued behind it — named, one line each
    for (const { clientRequestId, status } of this.inHand.keys()) {
      this.metrics.outcomesUnstoredAtShutdown.inc();
      this.logger.error('order outcome not stored before shutdown; it will be reconciled at the next start', {
        clientRequestId,
        status,
      });
    }
    this.inHand.clear();
  }

  /** Publishes one outcome unless its order's mark shows it (or a final one) already published. */
  async publish(outcome: OrderOutcome): Promise<void> {
    const { clientRequestId, status } = outcome;
    let topic: Topic<OrderOutcome>;
    try {
      topic = topicsOf(this.subjects).orderOutcome(clientRequestId);
    } catch (error) {
      this.logger.error('order outcome cannot form a subject; not published', {
        status,
        error: error instanceof Error ? error.message : String(error),
      });
      this.metrics.outcomesSkipped.inc({ reason: 'unroutable' });
      return;
    }
    // Until stored or shutdown: a NATS outage (the mark unreadable, the stream unreachable) only delays an
    // outcome; dropping it would leave the order unresolved until the connector's next start.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.store(topic, outcome);
        return;
      } catch (error) {
        this.metrics.outcomePublishFailures.inc();
        const fields = { clientRequestId, status, error: error instanceof Error ? error.message : String(error) };
        if (this.abort.signal.aborted) return; // named by stop()
        if (attempt === 1) this.logger.warn('order outcome not stored yet; retrying until it is', fields);
        await pause(STORE_RETRY_MS, this.abort.signal);
      }
    }
  }

  /** One attempt: read the mark, publish unless already published, then move the mark. */
  private async store(topic: Topic<OrderOutcome>, outcome: OrderOutcome): Promise<void> {
    const { clientRequestId, status } = outcome;
    const mark = await this.marks.get(clientRequestId);
    if (mark !== undefined && mark.status === status) {
      this.metrics.outcomesSkipped.inc({ reason: 'duplicate' });
      return;
    }
    if (mark !== undefined && isFinal(mark.status)) {
      this.metrics.outcomesSkipped.inc({ reason: 'after_final' });
      this.logger.warn('outcome after a final outcome ignored', { clientRequestId, status, final: mark.status });
      // the gateway no longer knew the order final (a restart since): execution is told all the same
      const kept = mark.status === 'SUCCESS' || mark.status === 'FAILED' ? mark.status : undefined;
      if (kept !== undefined && contradicts(kept, status)) {
        const { source } = outcome;
        this.contradictions?.add({ v: 1, clientRequestId, kept, status, source, at: Date.now() });
      }
      return;
    }
    const ack = await this.publisher.publishDurableTo(topic, outcome, {
      msgId: orderOutcomeMsgId(outcome),
      attempts: Number.MAX_SAFE_INTEGER,
      retryDelayMs: STORE_RETRY_MS,
      signal: this.abort.signal,
    });
    // A retry after the mark could not be moved is dropped by the stream (same msgId): count it once.
    if (!ack.duplicate) this.metrics.outcomesPublished.inc({ status });
    await this.marks.record(clientRequestId, status);
  }

  private settled(outcome: OrderOutcome): void {
    this.inHand.delete(outcome);
    if (this.inHand.size === 0) {
      this.idle?.();
      this.idle = undefined;
    }
  }
}

const STORE_RETRY_MS = 500;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

import { concatMap, from, merge, Subject, type Observable, type Subscription } from 'rxjs';
import { orderContradictionMsgId, topicsOf, type OrderContradiction, type Subjects } from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';

/**
 * Stores each contradiction of a published final outcome (spec-gaps K7) in the order outcome stream, on
 * `order.contradiction.{clientRequestId}` with `Nats-Msg-Id` = clientRequestId:contradicted:status (a repeat inside
 * the duplicate window is dropped; execution's handling is idempotent beyond it). One at a time, retried through a
 * NATS outage until stored or shutdown: the published outcome stands either way, this only tells execution to
 * read the venue's trade list — a lost one leaves a filled order reported FAILED (the alert still fires).
 */
export class OrderContradictions {
  private subscription: Subscription | undefined;
  private readonly abort = new AbortController();
  private readonly found = new Subject<OrderContradiction>();

  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: BusPublisher,
    private readonly logger: JsonLogger,
  ) {}

  start(contradictions$: Observable<OrderContradiction>): void {
    this.subscription ??= merge(contradictions$, this.found)
      .pipe(concatMap((contradiction) => from(this.store(contradiction))))
      .subscribe({
        error: (error: unknown) =>
          this.logger.error('order contradiction stream ended with an error', { error: String(error) }),
      });
  }

  /** One found on the NATS side (an outcome against its order's final mark), stored in turn with the gateway's. */
  add(contradiction: OrderContradiction): void {
    this.found.next(contradiction);
  }

  stop(): void {
    this.abort.abort();
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private async store(contradiction: OrderContradiction): Promise<void> {
    const { clientRequestId, kept, status } = contradiction;
    try {
      const topic = topicsOf(this.subjects).orderContradiction(clientRequestId);
      await this.publisher.publishDurableTo(topic, contradiction, {
        msgId: orderContradictionMsgId(contradiction),
        attempts: Number.MAX_SAFE_INTEGER,
        retryDelayMs: STORE_RETRY_MS,
        signal: this.abort.signal,
      });
    } catch (error) {
      this.logger.error('order contradiction not stored; execution will not read the trade list for it', {
        clientRequestId: clientRequestId.slice(0, 64),
        kept,
        status,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

const STORE_RETRY_MS = 500;

import type { Observable, Subscription } from 'rxjs';
import type { PriceMessage, Subjects } from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';

/**
 * Puts every PriceMessage on its price subject with a core publish: the venue session never waits for
 * NATS or for a strategy (the client buffers; while NATS is down the bus drops and counts). The subject
 * of each stream is computed once.
 */
export class PricePublication {
  private readonly subjectByKey = new Map<string, string>();
  /** Counter children bound once: a label lookup per message is measurable on the hot path. */
  private readonly published: Record<PriceMessage['status'], { inc(): void }>;
  private subscription: Subscription | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: BusPublisher,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
  ) {
    const counter = metrics.pricesPublished;
    this.published = {
      live: counter.labels({ status: 'live' }),
      stale: counter.labels({ status: 'stale' }),
      stopped: counter.labels({ status: 'stopped' }),
    };
  }

  start(prices$: Observable<PriceMessage>): void {
    this.subscription ??= prices$.subscribe({
      next: (price) => this.publish(price),
      error: (error: unknown) => this.logger.error('price stream ended with an error', { error: String(error) }),
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  publish(price: PriceMessage): void {
    const key = `${price.accountGroup}|${price.instrument}|${price.tenor}|${price.currency}|${price.quantity}`;
    const subject = this.subjectOf(price, key);
    if (subject === undefined) return;
    if (this.publisher.publish(subject, price, 'price')) this.published[price.status].inc();
  }

  private subjectOf(price: PriceMessage, key: string): string | undefined {
    let subject = this.subjectByKey.get(key);
    if (subject === undefined) {
      try {
        subject = this.subjects.price(price);
      } catch (error) {
        this.metrics.pricesUnroutable.inc();
        this.logger.warn('price cannot form a subject; dropped', {
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      }
      this.subjectByKey.set(key, subject);
    }
    return subject;
  }
}

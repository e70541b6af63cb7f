/**
 * `…order.recall` (OrderRecall): the execution app asks that orders accepted before a halt not be sent if their
 * frames have not left yet. Followed live, and read back at start from the recall stream (kept 20 min): a
 * connector down when the halt came still refuses the commands waiting for it. Best effort on top of each
 * command's `sendBy`: a recall lost (NATS down when it was published) leaves the deadline to bound what leaves.
 */
import { orderRecallOf, StreamName, type OrderRecall, type Subjects } from '#contracts';
import type { BusCore, BusStreams, BusSubscription } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import type { OrderVenue } from './venue-ports.js';

export class OrderRecalls {
  private subscription: BusSubscription | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly core: BusCore,
    private readonly venue: Pick<OrderVenue, 'recall'>,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
  ) {}

  /** Live first, then the stored recalls: none is missed in between (one read twice changes nothing). */
  async start(streams: Pick<BusStreams, 'readAll'>): Promise<void> {
    this.subscription ??= this.core.subscribe(this.subjects.orderRecall, (message) => {
      const recall = this.readable(message.json<unknown>());
      if (recall === undefined) return;
      const { alreadySent } = this.venue.recall(recall.clientRequestIds);
      this.logger.warn('orders recalled: not sent if their frames have not left', {
        orders: recall.clientRequestIds.length,
        alreadySent,
        reason: recall.reason,
      });
    });
    let stored = 0;
    await streams
      .readAll<unknown>(
        StreamName.orderRecalls(this.subjects.account),
        this.subjects.orderRecall,
        (_subject, value) => {
          const recall = this.readable(value);
          if (recall === undefined) return;
          this.venue.recall(recall.clientRequestIds);
          stored += recall.clientRequestIds.length;
        },
      )
      .catch((error: unknown) =>
        this.logger.warn('stored order recalls could not be read; only live ones apply', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    if (stored > 0) this.logger.info('order recalls of the last minutes read back', { orders: stored });
  }

  private readable(value: unknown): OrderRecall | undefined {
    const recall = orderRecallOf(value);
    if (recall === undefined) {
      this.metrics.orderRecalls.inc({ result: 'invalid' });
      this.logger.warn('an order recall without the expected shape; ignored (v 1, up to 1,000 clientRequestIds)');
      return undefined;
    }
    this.metrics.orderRecalls.inc({ result: 'applied' });
    return recall;
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}

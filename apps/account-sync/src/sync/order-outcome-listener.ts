/**
 * Reads the connector's durable order outcomes (`{prefix}.{account}.order.outcome.>`, stream
 * `GW_ORDER_OUTCOMES_{account}`, docs/nats-contract.md) with this app's own durable consumer, and asks for an
 * immediate refresh of what an order moves (balances, trades, transactions, limits). The connector creates the
 * stream: until it exists, the listener retries every few seconds (health says so).
 */
import { DurableFollower, type BusConsumers, type DurableMessage } from '#bus';
import { StreamName, type OrderOutcome, type Subjects } from '#contracts';
import type { JsonLogger } from '#observability';
import type { SyncTriggers } from './sync-triggers.js';

export const ORDER_OUTCOMES_DURABLE = 'account-sync';

export class OrderOutcomeListener {
  private readonly follower: DurableFollower;
  private lastError: string | undefined = 'not started';
  private readonly log: JsonLogger;

  constructor(
    consumers: BusConsumers,
    subjects: Subjects,
    private readonly triggers: SyncTriggers,
    ackWaitMs: number,
    logger: JsonLogger,
  ) {
    this.log = logger.child('OrderOutcomes');
    this.follower = new DurableFollower({
      consumers,
      consumer: {
        stream: StreamName.orderOutcomes(subjects.account),
        durable: ORDER_OUTCOMES_DURABLE,
        filterSubject: subjects.allOrderOutcomes,
        ackWaitMs,
        // one account-sync per account: drop the pull requests a dead predecessor left at the server (with a
        // `>` subscriber on nats-server 2.9 they took the first outcomes after a restart for the ack wait)
        exclusive: true,
        handle: (message) => this.onOutcome(message),
      },
      onAttached: () => {
        this.lastError = undefined;
        this.log.info('listening to order outcomes');
      },
      onWaiting: (error) => {
        this.lastError =
          `waiting for the order outcome stream: ${error instanceof Error ? error.message : String(error)}`.slice(
            0,
            200,
          );
      },
    });
  }

  get listening(): { up: boolean; detail?: string } {
    return this.follower.attached ? { up: true } : { up: false, detail: this.lastError ?? 'starting' };
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  private async onOutcome(message: DurableMessage): Promise<void> {
    let outcome: Partial<OrderOutcome> | undefined;
    try {
      outcome = JSON.parse(Buffer.from(message.data).toString('utf8')) as Partial<OrderOutcome>;
    } catch {
      outcome = undefined;
    }
    // Any outcome (even one we cannot read) may have moved the account: refresh, never lose the signal.
    this.triggers.refreshAfter({
      kind: 'order-outcome',
      clientRequestId: typeof outcome?.clientRequestId === 'string' ? outcome.clientRequestId : 'unreadable',
    });
    await message.ack();
  }
}

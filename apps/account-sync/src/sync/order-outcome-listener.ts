/**
 * Reads the connector's durable order outcomes (`{prefix}.{account}.order.outcome.>`, stream
 * `GW_ORDER_OUTCOMES_{account}`, docs/nats-contract.md) with this app's own durable consumer, and asks for an
 * immediate refresh of what an order moves (balances, trades, transactions, limits). The connector creates the
 * stream: until it exists, the listener retries every few seconds (health says so).
 */
import type { BusConsumers, DurableConsumerHandle, DurableMessage } from '#bus';
import { StreamName, type OrderOutcome, type Subjects } from '#contracts';
import type { JsonLogger } from '#observability';
import type { SyncTriggers } from './sync-triggers.js';

export const ORDER_OUTCOMES_DURABLE = 'account-sync';
const RETRY_MS = 2_000;

export class OrderOutcomeListener {
  private handle: DurableConsumerHandle | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastError: string | undefined = 'not started';
  private readonly log: JsonLogger;

  constructor(
    private readonly consumers: BusConsumers,
    private readonly subjects: Subjects,
    private readonly triggers: SyncTriggers,
    private readonly ackWaitMs: number,
    logger: JsonLogger,
  ) {
    this.log = logger.child('OrderOutcomes');
  }

  get listening(): { up: boolean; detail?: string } {
    return this.handle !== undefined ? { up: true } : { up: false, detail: this.lastError ?? 'starting' };
  }

  start(): void {
    this.stopped = false;
    void this.attach();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.handle?.stop();
    this.handle = undefined;
  }

  private async attach(): Promise<void> {
    if (this.stopped) return;
    try {
      this.handle = await this.consumers.consumeDurable({
        stream: StreamName.orderOutcomes(this.subjects.account),
        durable: ORDER_OUTCOMES_DURABLE,
        filterSubject: this.subjects.allOrderOutcomes,
        ackWaitMs: this.ackWaitMs,
        // one account-sync per account: drop the pull requests a dead predecessor left at the server (with a
        // `>` subscriber on nats-server 2.9 they took the first outcomes after a restart for the ack wait)
        exclusive: true,
        handle: (message) => this.onOutcome(message),
      });
      this.lastError = undefined;
      this.log.info('listening to order outcomes');
      if (this.stopped) await this.stop();
    } catch (error) {
      this.lastError =
        `waiting for the order outcome stream: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
      this.retry = setTimeout(() => void this.attach(), RETRY_MS);
    }
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

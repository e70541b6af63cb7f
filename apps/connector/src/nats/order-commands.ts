import {
  CLIENT_REQUEST_ID,
  GatewayErrorCode,
  OrderCommand,
  parseContract,
  StreamName,
  type OrderOutcome,
  type Subjects,
} from '#contracts';
import { ORDER_COMMANDS_DURABLE, type BusConsumers, type DurableConsumerHandle, type DurableMessage } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import { isFinal, type OrderMarks } from './order-marks.js';
import type { OrderOutcomes } from './order-outcomes.js';
import type { OrderVenue } from './venue-ports.js';
import { OrderNotSentError, type ReconcileHints } from '../venue/index.js';

/**
 * Takes order commands from the account's JetStream work queue, one at a time. Before a command can
 * reach the venue its clientRequestId is marked (KV create-if-absent): only the call that created the
 * mark sends; a command whose mark already exists — a redelivery, a restart, a repeated id — is never
 * sent again, its outcome is reconciled instead (an order of unknown outcome is never re-placed).
 * The command is acknowledged after; an invalid one is acknowledged with a FAILED INVALID_REQUEST outcome.
 */
export class OrderCommands {
  private handle: DurableConsumerHandle | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly consumers: BusConsumers,
    private readonly marks: OrderMarks,
    private readonly venue: OrderVenue,
    private readonly outcomes: OrderOutcomes,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
    private readonly ackWaitMs: number,
  ) {}

  async start(): Promise<void> {
    this.handle ??= await this.consumers.consumeDurable({
      stream: StreamName.orderCommands(this.subjects.account),
      durable: ORDER_COMMANDS_DURABLE,
      filterSubject: this.subjects.orderCommand,
      ackWaitMs: this.ackWaitMs,
      exclusive: true, // one connector per account: drop what a dead predecessor left at the server
      handle: (message) => this.take(message),
    });
  }

  /** Stops taking commands; resolves once the command in hand (if any) is finished. */
  async stop(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.stop();
  }

  async take(message: DurableMessage): Promise<void> {
    const parsed = parseContract(OrderCommand, message.data);
    if (!parsed.ok) {
      await this.refuse(message, parsed.problems);
      return;
    }
    const command = parsed.value;
    const id = command.clientRequestId;
    const marked = await this.marks.mark(id, { status: 'SENDING', quoteId: command.quoteId, side: command.side });
    if (marked === 'created') {
      if ((await this.send(message, command)) === 'handed-back') return;
    } else {
      const mark = await this.marks.get(id);
      if (mark !== undefined && isFinal(mark.status)) {
        this.metrics.orderCommands.inc({ result: 'duplicate' });
        this.logger.info('order command repeated after its final outcome; not sent again', { clientRequestId: id });
      } else {
        this.metrics.orderCommands.inc({ result: 'reconciled' });
        this.logger.warn('order command seen before; not sent again, reconciling its outcome', {
          clientRequestId: id,
          deliveryCount: message.deliveryCount,
        });
        this.reconcile(id, {
          markedAt: mark?.markedAt ?? Date.now(),
          quoteId: mark?.quoteId ?? command.quoteId,
          side: mark?.side ?? command.side,
        });
      }
    }
    await message.ack();
  }

  /** 'handed-back': shutting down before the frame left; the command is back in the stream, unsent. */
  private async send(message: DurableMessage, command: OrderCommand): Promise<'done' | 'handed-back'> {
    const keepAlive = setInterval(() => message.working(), Math.max(500, Math.floor(this.ackWaitMs / 2)));
    try {
      await this.venue.submit(command);
      this.metrics.orderCommands.inc({ result: 'submitted' });
      await this.marks
        .record(command.clientRequestId, 'SENT')
        .catch((error: unknown) =>
          this.logger.warn('could not record SENT on the order mark', { error: String(error) }),
        );
    } catch (error) {
      if (error instanceof OrderNotSentError && error.code === 'SHUTTING_DOWN') {
        await this.marks.release(command.clientRequestId);
        message.nak(0);
        this.metrics.orderCommands.inc({ result: 'handed_back' });
        this.logger.info('order not sent before shutdown; handed back to the stream', {
          clientRequestId: command.clientRequestId,
        });
        return 'handed-back';
      }
      if (error instanceof OrderNotSentError) {
        this.failNeverSent(command, error);
        return 'done';
      }
      // The frame may or may not have left: unknown, never re-sent; the gateway resolves it.
      this.metrics.orderCommands.inc({ result: 'failed' });
      this.logger.error('order submit failed; reconciling its outcome', {
        clientRequestId: command.clientRequestId,
        error: error instanceof Error ? error.message : String(error),
      });
      this.reconcile(command.clientRequestId, { quoteId: command.quoteId, side: command.side });
    } finally {
      clearInterval(keepAlive);
    }
    return 'done';
  }

  /** The frame certainly never left (no socket, or shutting down): a definitive FAILED, decided by the gateway. */
  private failNeverSent(command: OrderCommand, error: OrderNotSentError): void {
    this.metrics.orderCommands.inc({ result: 'not_sent' });
    this.logger.warn('order not sent; published as FAILED', {
      clientRequestId: command.clientRequestId,
      code: error.code,
    });
    this.outcomes.add({
      v: 1,
      clientRequestId: command.clientRequestId,
      status: 'FAILED',
      quoteId: command.quoteId,
      side: command.side,
      code: error.code,
      message: 'the order was never sent to the venue',
      source: 'gateway',
    });
  }

  private async refuse(message: DurableMessage, problems: string[]): Promise<void> {
    this.metrics.orderCommands.inc({ result: 'invalid' });
    const id = clientRequestIdOf(message.data);
    this.logger.warn('invalid order command refused; never sent', { clientRequestId: id, problems });
    if (id !== undefined) {
      // Marked FAILED first, so a later command with the same id cannot be sent either.
      const marked = await this.marks.mark(id, { status: 'SENDING' });
      if (marked === 'created') {
        const outcome: OrderOutcome = {
          v: 1,
          clientRequestId: id,
          status: 'FAILED',
          code: GatewayErrorCode.InvalidRequest,
          message: problems.join('; '),
          source: 'gateway',
        };
        this.outcomes.add(outcome);
      }
    }
    await message.ack();
  }

  private reconcile(clientRequestId: string, hints: ReconcileHints): void {
    this.venue.reconcile(clientRequestId, hints).catch((error: unknown) =>
      this.logger.error('reconciliation failed', {
        clientRequestId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
}

/** The clientRequestId of an invalid command, when it has a usable one (to answer on its outcome subject). */
function clientRequestIdOf(data: Uint8Array): string | undefined {
  try {
    const plain: unknown = JSON.parse(new TextDecoder().decode(data));
    if (typeof plain !== 'object' || plain === null || !('clientRequestId' in plain)) return undefined;
    const { clientRequestId } = plain;
    return typeof clientRequestId === 'string' && CLIENT_REQUEST_ID.test(clientRequestId) ? clientRequestId : undefined;
  } catch {
    return undefined;
  }
}

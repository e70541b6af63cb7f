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
import { isFinal, type OrderMark, type OrderMarks } from './order-marks.js';
import type { OrderOutcomes } from './order-outcomes.js';
import type { OrderVenue } from './venue-ports.js';
import { OrderNotSentError, type ReconcileHints } from '../venue/index.js';

/**
 * Takes order commands from the account's JetStream work queue, one at a time. Right before a command's
 * frame leaves (after the wait for the order gap) its clientRequestId is marked (KV create-if-absent): only
 * the call that created the mark sends; a command whose mark already exists — a redelivery, a restart, a repeated id — is never
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
    const seen = await this.marks.get(command.clientRequestId);
    // a mark this process's own failed call left (its create's answer lost) is not "seen before": never sent
    if (seen !== undefined && !this.marks.leftUnsent(seen)) this.seenBefore(message, command, seen);
    else if ((await this.send(message, command)) === 'handed-back') return;
    await message.ack();
  }

  /** A command whose mark exists — a redelivery, a restart, a repeated id: never sent again; reconciled unless final. */
  private seenBefore(message: DurableMessage, command: OrderCommand, mark: OrderMark | undefined): void {
    const id = command.clientRequestId;
    if (mark !== undefined && isFinal(mark.status)) {
      this.metrics.orderCommands.inc({ result: 'duplicate' });
      this.logger.info('order command repeated after its final outcome; not sent again', { clientRequestId: id });
      return;
    }
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

  /** 'handed-back': shutting down before the frame left; the command is back in the stream, unsent. */
  private async send(message: DurableMessage, command: OrderCommand): Promise<'done' | 'handed-back'> {
    const keepAlive = setInterval(() => message.working(), Math.max(500, Math.floor(this.ackWaitMs / 2)));
    const id = command.clientRequestId;
    let marked = false;
    // Marked (create-if-absent) at the last moment before the frame leaves, after the wait for the order gap:
    // only the call that created the mark sends. A process killed while its order waited for the gap left no
    // mark, so the command, redelivered, is sent then — not reconciled as UNKNOWN until its quote expired.
    const fields = { status: 'SENDING' as const, quoteId: command.quoteId, side: command.side };
    const gate = async (): Promise<'send' | 'hold-back'> => {
      try {
        marked = (await this.marks.mark(id, fields)) === 'created';
      } catch (cause) {
        throw new MarkNotWritten(cause);
      }
      return marked ? 'send' : 'hold-back';
    };
    try {
      if ((await this.venue.submit(command, gate)) === 'held-back') {
        // another delivery marked it meanwhile (or this process sent it already)
        this.seenBefore(message, command, await this.marks.get(id));
        return 'done';
      }
      this.metrics.orderCommands.inc({ result: 'submitted' });
      await this.marks
        .record(command.clientRequestId, 'SENT')
        .catch((error: unknown) =>
          this.logger.warn('could not record SENT on the order mark', { error: String(error) }),
        );
    } catch (error) {
      // nothing sent and nothing marked (NATS away): the command fails here and is delivered again
      if (error instanceof MarkNotWritten) throw error.cause;
      if (error instanceof OrderNotSentError && error.code === 'SHUTTING_DOWN') {
        if (marked) await this.marks.release(command.clientRequestId);
        message.nak(0);
        this.metrics.orderCommands.inc({ result: 'handed_back' });
        this.logger.info('order not sent before shutdown; handed back to the stream', {
          clientRequestId: command.clientRequestId,
        });
        return 'handed-back';
      }
      if (error instanceof OrderNotSentError) {
        // refused before the gate (no session in time, quote or sendBy past): marked first, as the FAILED it
        // ends, so that no later delivery of the command sends it
        if (!marked && (await this.marks.mark(id, fields)) === 'exists') {
          this.seenBefore(message, command, await this.marks.get(id));
          return 'done';
        }
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

/** The send mark could not be written: the order was not sent. */
class MarkNotWritten extends Error {
  constructor(override readonly cause: unknown) {
    super('the order mark could not be written', { cause });
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

import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import type { JsonLogger } from '#observability';
import type { BusConnection } from './bus-connection.js';
import { ackSubjectOf, confirmedAck } from './confirmed-ack.js';

/** One message of a durable consumer, as a handler sees it. */
export interface DurableMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** 1 on first delivery, 2+ on redelivery. */
  readonly deliveryCount: number;
  /** Acknowledges and waits for the server to confirm the ack (sent again while unconfirmed; see confirmedAck). */
  ack(): Promise<void>;
  /** Never redeliver (a poison message). */
  term(reason: string): void;
  /** Redeliver after `delayMs`. */
  nak(delayMs: number): void;
  /** Extends the ack deadline while the handler is still busy. */
  working(): void;
}

export interface DurableConsumerOptions {
  stream: string;
  durable: string;
  filterSubject: string;
  /** Time the server waits for an ack before redelivering (ms). */
  ackWaitMs: number;
  maxDeliver?: number;
  /**
   * This process is the consumer's only client (one connector per account): at start, the consumer is
   * deleted and created again, which drops the pull requests an earlier, dead or stopped, instance left at
   * the server. nats-server 2.9 keeps those until they expire and, while anything subscribes to `>`, still
   * hands them messages that then wait out the ack wait. The new consumer starts after the old one's
   * acknowledged floor, so no unacknowledged message is lost (each is delivered again at once) and, on a
   * limits stream, the acknowledged history is not replayed (one beyond the floor acknowledged out of order
   * may come again: handlers are idempotent).
   */
  exclusive?: boolean;
  /** Called one message at a time, in order; a throw naks the message for redelivery. */
  handle: (message: DurableMessage) => Promise<void>;
}

export interface DurableConsumerHandle {
  /**
   * Stops taking messages at once: the one being handled (if any) is finished, every message already
   * pulled but not handled goes back to the stream unhandled (nak). Resolves when both are done.
   */
  stop(): Promise<void>;
}

const PREFETCH = 16;
const RESUME_DELAY_MS = 1_000;

/** Durable pull consumers (explicit ack) that survive restarts: a process resumes where it left off. */
export class BusConsumers {
  constructor(
    private readonly connection: BusConnection,
    private readonly logger: JsonLogger,
  ) {}

  /**
   * Kept in the connection's topology: when the server lost the consumer (a store lost with its server), it is
   * created again and consumed at once, rather than after the client's own slow check (up to its pull expiry).
   */
  async consumeDurable(options: DurableConsumerOptions): Promise<DurableConsumerHandle> {
    await this.ensureConsumer(options);
    // Which stream this consumer reads (a stream created again has new sequences) and its acknowledged floor as
    // the server last said (at start, then at every check of the topology): where a consumer created again starts.
    const state = {
      stopped: false,
      streamCreated: (await this.connection.jsm.streams.info(options.stream)).created,
      ackFloor: await this.ackFloor(options),
    };
    let messages = await this.open(options);
    // The pull loop must never end the process: if the message iterator fails (e.g. the connection
    // closed under it), log, wait, and consume again; the durable consumer resumes where it left off.
    const run = async (): Promise<void> => {
      for (;;) {
        const current = messages;
        let failure: unknown = new Error('message iterator ended');
        try {
          await this.loop(current, options, state);
        } catch (error) {
          failure = error;
        }
        // Replaced after the consumer was created again: consume the new one — stopping too, so that what it
        // pulled is handed back and its close() (which settles only once its iterator is read) completes.
        if (messages !== current) continue;
        if (state.stopped) return;
        this.logger.error('durable consumer stopped; consuming again shortly', {
          stream: options.stream,
          durable: options.durable,
          error: failure instanceof Error ? failure.message : String(failure),
        });
        await new Promise((resolve) => setTimeout(resolve, RESUME_DELAY_MS));
        if (messages !== current) continue;
        if (state.stopped) return;
        try {
          messages = await this.open(options);
        } catch {
          // the next turn of the loop logs and retries
        }
      }
    };
    const done = run();
    const declaration = { kind: 'consumer' as const, stream: options.stream, name: options.durable };
    const { topology } = this.connection;
    topology.keep({
      ...declaration,
      declare: async () => {
        if (state.stopped) return;
        // created again only if it is gone (a read otherwise: see BusStreams.createIfMissing)
        const floor = await this.ackFloor(options);
        if (floor !== undefined) {
          state.ackFloor = floor;
          return;
        }
        // On the same stream: after its acknowledged floor as last read (what was acknowledged since comes again —
        // handlers are idempotent — but nothing unacknowledged is skipped, and a limits stream's history is not
        // replayed). On a stream created again (a store lost): from its start.
        const stream = await this.connection.jsm.streams.info(options.stream);
        const sameStream = stream.created === state.streamCreated;
        const workQueue = stream.config.retention === RetentionPolicy.Workqueue;
        const resumeAfter = sameStream && !workQueue ? state.ackFloor : undefined;
        await this.ensureConsumer({ ...options, exclusive: false }, resumeAfter);
        state.streamCreated = stream.created;
        state.ackFloor = resumeAfter ?? 0;
        this.logger.warn('durable consumer was gone; created again', {
          stream: options.stream,
          durable: options.durable,
          resumeAfter: resumeAfter ?? 0,
        });
        // created again: the running iterator waits on a consumer that no longer exists
        const fresh = await this.open(options);
        const stale = messages;
        messages = fresh;
        // Not awaited: an iterator's close() settles only once the run loop reads it to its end.
        if (state.stopped) void fresh.close().catch(() => undefined);
        void stale.close().catch(() => undefined);
      },
    });
    return {
      stop: async () => {
        state.stopped = true;
        topology.forget(declaration);
        // close(): the iterator still yields what was already pulled, and the loop hands it back (nak). Its
        // promise is not awaited (it settles only when read); the run loop's end is.
        void messages.close().catch(() => undefined);
        await done;
      },
    };
  }

  private async open(options: DurableConsumerOptions): Promise<ConsumerMessages> {
    const consumer = await this.connection.js.consumers.get(options.stream, options.durable);
    // A small prefetch: handlers take one message at a time, and a prefetched message's ack wait runs
    // while it queues.
    return consumer.consume({ max_messages: PREFETCH });
  }

  private async loop(
    messages: ConsumerMessages,
    options: DurableConsumerOptions,
    state: { readonly stopped: boolean },
  ): Promise<void> {
    for await (const msg of messages) {
      if (state.stopped) {
        msg.nak(); // pulled before the stop, never handled: back to the stream for the next instance
        continue;
      }
      try {
        await options.handle(wrap(msg, this.connection));
      } catch (error) {
        this.logger.error('durable message handler failed; message will be redelivered', {
          stream: options.stream,
          durable: options.durable,
          error: error instanceof Error ? error.message : String(error),
        });
        msg.nak(1_000);
      }
    }
  }

  /** The consumer's acknowledged floor (stream sequence), or undefined when the consumer does not exist. */
  private async ackFloor(options: DurableConsumerOptions): Promise<number | undefined> {
    try {
      return (await this.connection.jsm.consumers.info(options.stream, options.durable)).ack_floor.stream_seq;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** `resumeAfter`: a consumer created here starts after this stream sequence (else from the stream's start). */
  private async ensureConsumer(options: DurableConsumerOptions, resumeAfter?: number): Promise<'created' | 'updated'> {
    const config = {
      durable_name: options.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: options.filterSubject,
      ack_wait: options.ackWaitMs * 1_000_000,
      max_deliver: options.maxDeliver ?? -1,
    };
    const { jsm } = this.connection;
    if (options.exclusive === true) {
      // Created again where the earlier one had got to: after its acknowledged floor. On a limits stream the
      // acknowledged messages are still there and "all" would replay them; on a work queue they are gone.
      const floor = await this.ackFloor(options);
      if (floor !== undefined) await jsm.consumers.delete(options.stream, options.durable);
      // (a work queue takes only "all", and holds nothing acknowledged anyway)
      const workQueue = (await jsm.streams.info(options.stream)).config.retention === RetentionPolicy.Workqueue;
      const resume = startingAfter(workQueue ? undefined : floor);
      await jsm.consumers.add(options.stream, { ...config, ...resume });
      return 'created';
    }
    try {
      await jsm.consumers.info(options.stream, options.durable);
      await jsm.consumers.update(options.stream, options.durable, {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
      });
      return 'updated';
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.status !== 404) throw error;
      await jsm.consumers.add(options.stream, { ...config, ...startingAfter(resumeAfter) });
      return 'created';
    }
  }
}

/** A new consumer's start: after stream sequence `seq` (its acknowledged floor), or the stream's start. */
function startingAfter(seq: number | undefined): { deliver_policy?: DeliverPolicy; opt_start_seq?: number } {
  return seq === undefined || seq === 0 ? {} : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: seq + 1 };
}

function wrap(msg: JsMsg, connection: BusConnection): DurableMessage {
  return {
    subject: msg.subject,
    data: msg.data,
    deliveryCount: msg.info.deliveryCount,
    ack: () => confirmedAck({ ackAck: () => msg.ackAck(), reply: ackSubjectOf(msg) }, connection.client),
    term: (reason) => msg.term(reason),
    nak: (delayMs) => msg.nak(delayMs),
    working: () => msg.working(),
  };
}

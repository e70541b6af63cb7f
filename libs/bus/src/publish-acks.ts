/**
 * JetStream publishes awaiting their PubAck through one shared reply subscription (one wildcard inbox per
 * connection), instead of a request per message: the client's request path builds two error objects with
 * stack traces for every publish, a measurable share of a webhook's cost (bench/webhook-ingest.ts). Expired
 * waits are swept together rather than timed one by one.
 */
import { createInbox, headers, type Msg, type MsgHdrs, type Subscription } from '@nats-io/transport-node';
import type { BusConnection } from './bus-connection.js';

export interface PubAckReply {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

interface Waiting {
  resolve: (ack: PubAckReply) => void;
  reject: (error: Error) => void;
  deadline: number;
}

const SWEEP_MS = 100;

export class PublishAcks {
  private readonly inbox = createInbox();
  private subscription: Subscription | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private counter = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly connection: BusConnection) {}

  /** Publishes `payload` on `subject` with `fields` as headers; resolves with the stream's PubAck. */
  publish(
    subject: string,
    payload: Uint8Array,
    fields: Record<string, string>,
    timeoutMs: number,
  ): Promise<PubAckReply> {
    this.listen();
    this.counter += 1;
    const token = this.counter.toString(36);
    const header: MsgHdrs = headers();
    for (const [name, value] of Object.entries(fields)) header.set(name, value);
    return new Promise<PubAckReply>((resolve, reject) => {
      this.waiting.set(token, { resolve, reject, deadline: Date.now() + timeoutMs });
      try {
        this.connection.client.publish(subject, payload, { reply: `${this.inbox}.${token}`, headers: header });
      } catch (error) {
        this.waiting.delete(token);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  private listen(): void {
    if (this.subscription !== undefined && !this.subscription.isClosed()) return;
    this.subscription = this.connection.client.subscribe(`${this.inbox}.*`, {
      callback: (error, msg) => {
        if (error !== null) return;
        try {
          this.answer(msg);
        } catch {
          // never into the NATS client (its read loop would end); the publish waiting for it times out instead
        }
      },
    });
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  private answer(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const waiting = this.waiting.get(token);
    if (waiting === undefined) return; // answered after its wait expired
    this.waiting.delete(token);
    if (msg.headers?.code === 503) {
      this.connection.topology.redeclare('no_stream'); // the server may have lost the stream
      waiting.reject(new Error('no stream captures the subject (no responders)'));
      return;
    }
    try {
      waiting.resolve(msg.json<PubAckReply>());
    } catch {
      waiting.reject(new Error('unreadable PubAck'));
    }
  }

  private sweep(): void {
    if (this.waiting.size === 0) return;
    const now = Date.now();
    for (const [token, waiting] of this.waiting) {
      if (waiting.deadline <= now) {
        this.waiting.delete(token);
        waiting.reject(new Error('no PubAck in time'));
      }
    }
  }
}

/**
 * Core NATS request/reply and subscriptions for apps that need more than a contract responder: a requester
 * (asking another app, e.g. the connector's `stream.subscribe`) and a raw subscriber (handling the bytes of a
 * request itself, or following messages published on a subject). Apps still never hold the NATS client.
 */
import type { Msg } from '@nats-io/transport-node';
import type { JsonLogger } from '#observability';
import type { BusConnection } from './bus-connection.js';
import { stoppable, type BusSubscription } from './bus-responder.js';

/** A message as a handler sees it; `respond` answers a request (no-op for a plain publish). */
export interface CoreMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** True when the sender waits for an answer. */
  readonly isRequest: boolean;
  respond(body: unknown): void;
  /** Decodes the payload as JSON; undefined when it is not JSON. */
  json<T>(): T | undefined;
}

export interface CoreSubscribeOptions {
  /** Queue group, so several instances share the messages. */
  queue?: string;
}

export class BusRequestError extends Error {
  constructor(
    readonly reason: 'timeout' | 'no-responders' | 'not-connected' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'BusRequestError';
  }
}

export class BusCore {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly connection: BusConnection,
    private readonly logger: JsonLogger,
  ) {}

  /** JSON request/reply; throws `BusRequestError` (timeout, no responders, not connected). */
  async request<R>(subject: string, body: unknown, timeoutMs: number): Promise<R> {
    if (!this.connection.isUp) throw new BusRequestError('not-connected', 'NATS is not connected');
    try {
      const reply = await this.connection.client.request(subject, this.encoder.encode(JSON.stringify(body)), {
        timeout: timeoutMs,
      });
      return reply.json<R>();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/no responders|503/i.test(text)) throw new BusRequestError('no-responders', text);
      if (/timeout/i.test(text)) throw new BusRequestError('timeout', text);
      throw new BusRequestError('failed', text);
    }
  }

  /** Core subscription; the handler never throws into the client (errors are logged). */
  subscribe(
    subject: string,
    handle: (message: CoreMessage) => void,
    options: CoreSubscribeOptions = {},
  ): BusSubscription {
    const sub = this.connection.client.subscribe(subject, {
      ...(options.queue !== undefined ? { queue: options.queue } : {}),
      callback: (error, msg) => {
        if (error) {
          this.logger.warn('subscription error', { subject, error: error.message });
          return;
        }
        try {
          handle(this.wrap(msg));
        } catch (failure) {
          this.logger.error('subscription handler failed', {
            subject,
            error: failure instanceof Error ? failure.message : String(failure),
          });
        }
      },
    });
    return stoppable(sub);
  }

  private wrap(msg: Msg): CoreMessage {
    const encoder = this.encoder;
    const decoder = this.decoder;
    const logger = this.logger;
    return {
      subject: msg.subject,
      data: msg.data,
      isRequest: Boolean(msg.reply),
      respond(body: unknown): void {
        if (!msg.reply) return;
        try {
          msg.respond(encoder.encode(JSON.stringify(body)));
        } catch (error) {
          logger.warn('could not send a reply', { error: error instanceof Error ? error.message : String(error) });
        }
      },
      json<T>(): T | undefined {
        try {
          return JSON.parse(decoder.decode(msg.data)) as T;
        } catch {
          return undefined;
        }
      },
    };
  }
}

/**
 * Live changes of the account (state changes, transactions, withdrawals) from the JetStream stream that stores
 * them — not a core subscription, which loses what is published while the client is disconnected or the
 * nats-server restarts. Each subscription reads with its own ordered consumer (no acks, in stream order) on
 * one filter subject (nats-server 2.9 takes one), starting after the stream's last message at subscription:
 * nothing from before, everything after. The consumer resumes after the last message it delivered across
 * reconnects and server restarts (re-created by the library from that sequence — which is why it starts at an
 * explicit sequence: one created "from new" that has delivered nothing yet would be re-created from the
 * stream's first message), so nothing is missed and nothing is delivered twice. Unsubscribing stops and
 * deletes it; closing the client completes it.
 */
import type { ConsumerMessages, OrderedConsumerOptions } from '@nats-io/jetstream';
import { Observable } from 'rxjs';
import type { ClientContext } from './client-context.js';
import { ClientErrorCode, GatewayError } from './gateway-error.js';

/** Pull bound: how soon a consumer lost with the server is noticed and asked for again (heartbeats at half). */
const PULL_EXPIRES_MS = 5_000;

export function changeFeed<T>(context: ClientContext, subject: string, app: string): Observable<T> {
  return new Observable<T>((subscriber) => {
    let stopped = false;
    let messages: ConsumerMessages | undefined;
    let remove: (() => Promise<unknown>) | undefined;
    void (async () => {
      const stream = await context.jsm.streams.find(subject);
      const { state } = await context.jsm.streams.info(stream);
      const options: Partial<OrderedConsumerOptions> = { filter_subjects: subject, opt_start_seq: state.last_seq + 1 };
      const consumer = await context.js.consumers.get(stream, options);
      remove = () => consumer.delete();
      if (stopped) return void remove().catch(() => undefined);
      messages = await consumer.consume({ expires: PULL_EXPIRES_MS });
      if (stopped) messages.stop();
      for await (const message of messages) {
        try {
          subscriber.next(message.json<T>());
        } catch {
          // not JSON: not of this contract
        }
      }
      if (!stopped) subscriber.complete(); // the connection closed
    })().catch((error: unknown) => {
      if (stopped) return;
      subscriber.error(
        new GatewayError(
          ClientErrorCode.StreamMissing,
          `cannot follow ${subject}: ${error instanceof Error ? error.message : String(error)}`,
          `is the ${app} running for this account? \`gw status\` lists the streams`,
        ),
      );
    });
    return () => {
      stopped = true;
      messages?.stop();
      void remove?.().catch(() => undefined); // gone by itself after its inactivity threshold otherwise
    };
  });
}

/**
 * Live changes of the account (state changes, transactions, withdrawals) from the JetStream stream that stores
 * them — not a core subscription, which loses what is published while the client is disconnected or the
 * nats-server restarts. Each subscription reads with its own ordered consumer (no acks, in stream order) on
 * one filter subject (nats-server 2.9 takes one), starting after the stream's last message at subscription:
 * nothing from before, everything after. The consumer resumes after the last message it delivered across
 * reconnects and server restarts (re-created by the library from that sequence — which is why it starts at an
 * explicit sequence: one created "from new" that has delivered nothing yet would be re-created from the
 * stream's first message), so nothing is missed and nothing is delivered twice.
 *
 * A server that lost its store comes back with the stream created anew and its sequences from 1: resuming
 * "after the last delivered" would skip everything up to that old number. So each time the library re-creates
 * the consumer, what it delivers waits until the stream's creation time is compared: the same stream, it is
 * passed on; a new one, the feed reads it from its first message (all of it published after the subscription).
 * Unsubscribing stops and deletes the consumer; closing the client completes it.
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
      const info = await context.jsm.streams.info(stream);
      let created = info.created;
      let startSeq = info.state.last_seq + 1;
      const emit = (message: { json<V>(): V }): void => {
        try {
          subscriber.next(message.json<T>());
        } catch {
          // not JSON: not of this contract
        }
      };
      for (;;) {
        const options: Partial<OrderedConsumerOptions> = { filter_subjects: subject, opt_start_seq: startSeq };
        const consumer = await context.js.consumers.get(stream, options);
        remove = () => consumer.delete();
        if (stopped) return void remove().catch(() => undefined);
        const current = await consumer.consume({ expires: PULL_EXPIRES_MS });
        messages = current;
        if (stopped) current.stop();
        // after the library re-created the consumer: messages wait here until the stream is known to be the same
        const watch = {
          held: undefined as Array<{ json<V>(): V }> | undefined,
          newStream: undefined as string | undefined,
        };
        void (async () => {
          for await (const status of current.status()) {
            if (status.type !== 'ordered_consumer_recreated') continue;
            watch.held ??= [];
            const now = await streamInfo(context, stream);
            if (now !== undefined && now.created !== created) {
              watch.newStream = now.created;
              current.stop();
              continue;
            }
            const held = watch.held;
            watch.held = undefined;
            for (const message of held) emit(message);
          }
        })().catch(() => undefined);
        for await (const message of current) {
          if (watch.newStream !== undefined) break;
          if (watch.held !== undefined) watch.held.push(message);
          else emit(message);
        }
        if (stopped || watch.newStream === undefined) break;
        // a new stream: all of it is newer than the subscription — from its first message, in order
        await consumer.delete().catch(() => undefined);
        created = watch.newStream;
        startSeq = 1;
      }
      if (!stopped) subscriber.complete(); // the connection closed
    })().catch((error: unknown) => {
      if (stopped) return;
      // the client closed (or is draining to close) while a read was under way: it may end in an error rather than
      // end — completed, as documented
      if (context.nc.isClosed() || context.nc.isDraining()) return subscriber.complete();
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

/** The stream's info, asked a few times (the server may be settling after a restart); undefined if it stays unknown. */
async function streamInfo(context: ClientContext, stream: string): Promise<{ created: string } | undefined> {
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    try {
      return await context.jsm.streams.info(stream);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return undefined;
}

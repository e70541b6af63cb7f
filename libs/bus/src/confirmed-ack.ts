/**
 * An acknowledgement the server confirms. `JsMsg.ackAck` gives up after its timeout (a busy server, a cluster
 * electing a consumer leader) and from its first try on counts the message as acknowledged, so a nak after it
 * is never sent: had the ack been lost, the message would wait out the whole ack wait before it came again.
 * So an unconfirmed ack is sent again until the server confirms it. nats-server confirms an ack it already
 * holds as well (checked on 2.9), and never counts one twice: sending it again is safe.
 */
import type { JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export const ACK_ATTEMPTS = 5;
const ACK_RETRY_TIMEOUT_MS = 2_000;
const ACK_RETRY_PAUSE_MS = 500;
const ACK = new TextEncoder().encode('+ACK');

/** The subject an ack goes to: not in `JsMsg`'s type, held by its implementation (@nats-io/jetstream 3.4, pinned). */
export function ackSubjectOf(msg: JsMsg): string | undefined {
  const inner = (msg as unknown as { msg?: { reply?: unknown } }).msg;
  return typeof inner?.reply === 'string' && inner.reply.length > 0 ? inner.reply : undefined;
}

/** `reply`: the message's ack subject (`ackSubjectOf`); without it an unconfirmed ack cannot be sent again. */
export async function confirmedAck(
  msg: Pick<JsMsg, 'ackAck'> & { reply: string | undefined },
  client: Pick<NatsConnection, 'request'>,
  options: { attempts?: number; timeoutMs?: number } = {},
): Promise<void> {
  let failure: unknown;
  try {
    // false: no reply subject, or acknowledged already — nothing to confirm
    await msg.ackAck();
    return;
  } catch (error) {
    failure = error;
  }
  const subject = msg.reply;
  for (let attempt = 2; subject !== undefined && attempt <= (options.attempts ?? ACK_ATTEMPTS); attempt += 1) {
    // "no responders" comes back at once while the consumer's leader is being elected: give the election time
    await new Promise((resolve) => setTimeout(resolve, ACK_RETRY_PAUSE_MS * (attempt - 1)));
    try {
      await client.request(subject, ACK, { timeout: options.timeoutMs ?? ACK_RETRY_TIMEOUT_MS });
      return;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

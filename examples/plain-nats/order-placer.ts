/**
 * The SDK order placer with only a plain NATS client — no code of this project: the contract is JSON over
 * NATS (docs/asyncapi.yaml). One request places an order (`{prefix}.{account}.exec.order.place`); its events
 * are read from the JetStream stream `GW_EXEC_ORDER_EVENTS_{account}` with an ordered consumer filtered on
 * `{prefix}.{account}.exec.order.event.{strategyId}.{orderId}`, from the first, until a final one (SUCCESS or
 * FAILED). UNKNOWN and INDETERMINATE are not failures: the execution app keeps reconciling them; after
 * SETTLE_WAIT_MS the placer reports the state the order is in.
 *
 *   NATS_URL=nats://127.0.0.1:4222 node dist/examples/plain-nats/order-placer.js
 *
 * Settings (environment): as examples/sdk/order-placer.ts, plus SETTLE_WAIT_MS (60000).
 */
import { randomUUID } from 'node:crypto';
import { connect, RequestError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';

const env = process.env;
const prefix = env['NATS_SUBJECT_PREFIX'] ?? 'gw.v1';
const account = env['ACCOUNT'] ?? 'default';
const say = (line: string): void => void process.stdout.write(`${line}\n`);

interface Order {
  orderId: string;
  quoteId: string;
  state: string;
  final: boolean;
  fill?: { baseAmount: string; baseCurrency: string; price: string };
}

/**
 * A request that tells "nobody serves this subject" apart: nats.js 3 rejects it with a `RequestError` whose `cause`
 * is a `NoRespondersError` (`isNoResponders()`). Nothing was received — not a timeout, not an unknown outcome.
 */
async function requestOnce(nc: NatsConnection, subject: string, body: string): Promise<Msg> {
  try {
    return await nc.request(subject, body, { timeout: 15_000 });
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) {
      throw new Error(`nobody serves ${subject} (no responders: nothing was received); is the gateway up?`, {
        cause: error,
      });
    }
    throw error;
  }
}

async function main(): Promise<number> {
  const nc = await connect({
    servers: (env['NATS_URL'] ?? 'nats://127.0.0.1:4222').split(','),
    name: 'example-plain-placer',
  });
  const ask = async <T>(subject: string, body: unknown): Promise<T> => {
    const reply = (await requestOnce(nc, subject, JSON.stringify(body))).json<
      T & { ok: boolean; error?: { code: string; message: string } }
    >();
    if (!reply.ok) throw new Error(`${reply.error?.code}: ${reply.error?.message}`);
    return reply;
  };
  try {
    let accountGroup = env['ACCOUNT_GROUP'];
    if (accountGroup === undefined) {
      const groups = await ask<{ accountGroups: { uuid: string; natural: boolean }[] }>(
        `${prefix}.${account}.account-groups.get`,
        {},
      );
      accountGroup = (groups.accountGroups.find((g) => g.natural) ?? groups.accountGroups[0])?.uuid;
    }
    const strategyId = env['STRATEGY_ID'] ?? 'example-plain-placer';
    const runId = env['RUN_ID'] ?? randomUUID();
    const js = jetstream(nc);
    let failed = 0;
    for (let i = 0; i < Number(env['ORDERS'] ?? '2'); i++) {
      const side = i % 2 === 0 ? 'BUY' : 'SELL';
      const accepted = await ask<{ orderId: string; duplicate: boolean; order: Order }>(
        `${prefix}.${account}.exec.order.place`,
        {
          idempotencyKey: `${runId}-${i}`,
          strategyId,
          accountGroup,
          side,
          instrument: env['INSTRUMENT'] ?? 'BTC.USD',
          quantity: env['QUANTITY'] ?? '0.01',
          currency: env['CURRENCY'] ?? 'BTC',
          tenor: env['TENOR'] ?? 'T',
        },
      );
      say(
        `order ${accepted.orderId} ${side} on quote ${accepted.order.quoteId}${accepted.duplicate ? ' (already placed)' : ''}`,
      );

      // the order's events, from the first: none is missed even if they came before this read
      const stream = `GW_EXEC_ORDER_EVENTS_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      const consumer = await js.consumers.get(stream, {
        filter_subjects: `${prefix}.${account}.exec.order.event.${strategyId}.${accepted.orderId}`,
        deliver_policy: DeliverPolicy.All,
      });
      const messages = await consumer.consume();
      let latest = accepted.order;
      const timer = setTimeout(() => void messages.stop(), Number(env['SETTLE_WAIT_MS'] ?? '60000'));
      for await (const message of messages) {
        const event = message.json<{ seq: number; order: Order }>();
        latest = event.order;
        say(`  ${event.seq} ${event.order.state}`);
        if (event.order.final) break;
      }
      clearTimeout(timer);
      await messages.close();
      const fill =
        latest.fill !== undefined
          ? ` ${latest.fill.baseAmount} ${latest.fill.baseCurrency} at ${latest.fill.price}`
          : '';
      say(`outcome ${latest.state}${fill}${latest.final ? '' : ' (not final: the gateway keeps reconciling it)'}`);
      if (latest.state === 'FAILED') failed++;
    }
    say('done');
    return failed > 0 ? 1 : 0;
  } finally {
    await nc.drain();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`order-placer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

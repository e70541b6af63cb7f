/**
 * The same price follower with nothing but a NATS client — no code of this project — to show the contract is
 * plain JSON on plain subjects (docs/nats-contract.md). Any language with a NATS client does the same steps:
 *
 *   1. ask for the stream:   request on {prefix}.{account}.stream.subscribe → {"ok":true,"subject",…}
 *   2. listen on the subject the reply names;
 *   3. read its last price at once: JetStream "get last message by subject" on the stream capturing it;
 *   4. renew the lease (the same request) every half lease;
 *   5. at the end, release: request on {prefix}.{account}.stream.release.
 *
 *   NATS_URL=nats://127.0.0.1:4222 ACCOUNT=default node dist/examples/plain-nats/price-follower.js
 *
 * Settings: as examples/sdk/price-follower.ts (ACCOUNT_GROUP defaults to the Natural group, asked on
 * {prefix}.{account}.account-groups.get).
 */
import { connect, RequestError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Decimal } from 'decimal.js';

const env = process.env;
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const prefix = env['NATS_SUBJECT_PREFIX'] ?? 'gw.v1';
const account = env['ACCOUNT'] ?? 'default';
const LEASE_SECONDS = 30;

/** The fields of a price this example reads (the whole message: docs/asyncapi.yaml, PriceMessage). */
interface Price {
  status: 'live' | 'stale' | 'stopped';
  quoteId?: string;
  quoteExpiresAt?: number;
  bid?: { price: string };
  offer?: { price: string };
  code?: string;
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
  const nc = await connect({ servers: (env['NATS_URL'] ?? 'nats://127.0.0.1:4222').split(','), name: 'example-plain' });
  const ask = async <T>(subject: string, body: unknown): Promise<T> => {
    const reply = (await requestOnce(nc, subject, JSON.stringify(body))).json<
      T & { ok: boolean; error?: { code: string; message: string } }
    >();
    if (!reply.ok) throw new Error(`${reply.error?.code}: ${reply.error?.message}`);
    return reply;
  };

  let accountGroup = env['ACCOUNT_GROUP'];
  if (accountGroup === undefined) {
    const groups = await ask<{ accountGroups: { uuid: string; natural: boolean }[] }>(
      `${prefix}.${account}.account-groups.get`,
      {},
    );
    accountGroup = (groups.accountGroups.find((g) => g.natural) ?? groups.accountGroups[0])?.uuid;
  }
  const request = {
    instrument: env['INSTRUMENT'] ?? 'BTC.USD',
    quantity: env['QUANTITY'] ?? '1',
    currency: env['CURRENCY'] ?? 'BTC',
    tenor: env['TENOR'] ?? 'T',
    accountGroup,
    requester: `plain-example-${process.pid}`,
    leaseSeconds: LEASE_SECONDS,
  };

  // 1. ask for the stream
  const { subject } = await ask<{ subject: string }>(`${prefix}.${account}.stream.subscribe`, request);
  say(`following ${subject}`);
  // 4. renew the lease every half lease
  const renewal = setInterval(
    () => void ask(`${prefix}.${account}.stream.subscribe`, request).catch(() => undefined),
    (LEASE_SECONDS * 1000) / 2,
  );

  const threshold = new Decimal(env['THRESHOLD_BPS'] ?? '5');
  const maxUpdates = Number(env['MAX_UPDATES'] ?? '0');
  let reference: Decimal | undefined;
  let seen = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const onPrice = (price: Price, origin: string): void => {
    const tradable = price.status === 'live' && (price.quoteExpiresAt ?? 0) > Date.now();
    if (!tradable || price.bid === undefined || price.offer === undefined) return;
    const mid = new Decimal(price.bid.price).plus(price.offer.price).dividedBy(2);
    reference ??= mid;
    const bps = mid.minus(reference).dividedBy(reference).times(10_000);
    let signal = 'HOLD';
    if (bps.abs().greaterThanOrEqualTo(threshold)) {
      signal = bps.isPositive() ? 'BUY' : 'SELL';
      reference = mid;
    }
    say(`price ${price.quoteId} mid ${mid.toFixed(4)} move ${bps.toFixed(2)} bps → ${signal}${origin}`);
    seen += 1;
    if (maxUpdates > 0 && seen >= maxUpdates) done();
  };

  // 2. listen on the granted subject
  let sawUpdate = false;
  const sub = nc.subscribe(subject, {
    callback: (error: Error | null, msg: Msg) => {
      if (error !== null) return;
      sawUpdate = true;
      onPrice(msg.json<Price>(), '');
    },
  });
  // 3. the last price at once, from the stream that captures the subject
  const jsm = await jetstreamManager(nc);
  const stream = await jsm.streams.find(subject);
  const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  if (last !== null && !sawUpdate) onPrice(last.json<Price>(), ' (last value)');

  process.once('SIGINT', () => done());
  await finished;
  // 5. release
  clearInterval(renewal);
  sub.unsubscribe();
  await ask(`${prefix}.${account}.stream.release`, { subject, requester: request.requester }).catch(() => undefined);
  await nc.drain();
  say('done');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`plain price-follower: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

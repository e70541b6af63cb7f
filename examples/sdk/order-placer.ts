/**
 * An order placer with the SDK (docs/algo-guide.md walks through it): places ORDERS orders of QUANTITY on the
 * latest quote of one stream, alternating BUY and SELL, prints each state the order enters and its outcome.
 * Every order carries its own idempotency key, derived from RUN_ID: run it again with the same RUN_ID after a
 * crash and the gateway answers the orders it already has instead of placing them twice. An UNKNOWN or
 * INDETERMINATE outcome is reported as such (the gateway keeps reconciling it) — never as a failure, never
 * re-placed.
 *
 *   NATS_URL=nats://127.0.0.1:4222 node dist/examples/sdk/order-placer.js
 *
 * Settings (environment): NATS_URL, ACCOUNT, NATS_SUBJECT_PREFIX, STRATEGY_ID (example-placer), INSTRUMENT
 * (BTC.USD), QUANTITY (0.01), CURRENCY (BTC), TENOR (T), ACCOUNT_GROUP (default: the Natural group), ORDERS (2),
 * RUN_ID (default: the time now).
 */
import { GatewayClient, GatewayError } from '#client';

const env = process.env;
const say = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const client = await GatewayClient.connect({
    servers: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    account: env['ACCOUNT'] ?? 'default',
    ...(env['NATS_SUBJECT_PREFIX'] !== undefined ? { prefix: env['NATS_SUBJECT_PREFIX'] } : {}),
    name: 'example-order-placer',
  });
  try {
    const accountGroup = env['ACCOUNT_GROUP'] ?? (await client.accountGroups.natural())?.uuid;
    if (accountGroup === undefined) throw new GatewayError('NO_GROUP', 'the connector knows no account group');
    const strategyId = env['STRATEGY_ID'] ?? 'example-placer';
    const runId = env['RUN_ID'] ?? String(Date.now());
    let failed = 0;
    for (let i = 0; i < Number(env['ORDERS'] ?? '2'); i++) {
      const side = i % 2 === 0 ? 'BUY' : 'SELL';
      const order = client.placeOrder({
        idempotencyKey: `${runId}-${i}`,
        strategyId,
        accountGroup,
        side,
        instrument: env['INSTRUMENT'] ?? 'BTC.USD',
        quantity: env['QUANTITY'] ?? '0.01',
        currency: env['CURRENCY'] ?? 'BTC',
        tenor: env['TENOR'] ?? 'T',
      });
      const accepted = await order.accepted;
      say(
        `order ${accepted.orderId} ${side} on quote ${accepted.order.quoteId}${accepted.duplicate ? ' (already placed)' : ''}`,
      );
      order.events.subscribe({ next: (event) => say(`  ${event.seq} ${event.order.state}`), error: () => undefined });
      const outcome = await order; // the final view, or the latest one when the venue's outcome stays open
      const fill =
        outcome.fill !== undefined
          ? ` ${outcome.fill.baseAmount} ${outcome.fill.baseCurrency} at ${outcome.fill.price}`
          : '';
      say(`outcome ${outcome.state}${fill}${outcome.final ? '' : ' (not final: the gateway keeps reconciling it)'}`);
      if (outcome.state === 'FAILED') failed++;
    }
    say('done');
    return failed > 0 ? 1 : 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const code = error instanceof GatewayError ? ` (${error.code})` : '';
    const next = error instanceof GatewayError && error.nextStep !== undefined ? `\n  next: ${error.nextStep}` : '';
    process.stderr.write(`order-placer: ${error instanceof Error ? error.message : String(error)}${code}${next}\n`);
    process.exit(1);
  },
);

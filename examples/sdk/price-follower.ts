/**
 * A price-following strategy with the SDK (docs/strategy-guide.md walks through it). It watches one stream,
 * keeps a reference mid price, and says what it would do when the mid moves more than a threshold away from
 * it: above → BUY (follow the move up), below → SELL; then the reference follows the price. It orders
 * nothing (the order placer comes with the execution app). Only tradable quotes count: stale, stopped and
 * expired ones are skipped. Money is decimal.js from the strings, never a JavaScript number.
 *
 *   NATS_URL=nats://127.0.0.1:4222 ACCOUNT=default node dist/examples/sdk/price-follower.js
 *
 * Settings (environment): NATS_URL, ACCOUNT, NATS_SUBJECT_PREFIX, INSTRUMENT (BTC.USD), QUANTITY (1),
 * CURRENCY (BTC), TENOR (T), ACCOUNT_GROUP (default: the Natural group), THRESHOLD_BPS (5),
 * MAX_UPDATES (stop after this many prices; default: until Ctrl-C).
 */
import { Decimal } from 'decimal.js';
import { filter, take } from 'rxjs';
import { GatewayClient, GatewayError, type PriceUpdate } from '#client';

const env = process.env;
const say = (line: string): void => void process.stdout.write(`${line}\n`);

/** The strategy itself: pure, fed one tradable price at a time. */
export class PriceFollower {
  private reference: Decimal | undefined;

  constructor(private readonly thresholdBps: Decimal) {}

  /** What to do on this price: the mid, its distance from the reference in basis points, and the signal. */
  onPrice(update: PriceUpdate): { mid: Decimal; bps: Decimal; signal: 'BUY' | 'SELL' | 'HOLD' } {
    const { bid, offer } = update.price;
    if (bid === undefined || offer === undefined) throw new Error('a tradable price has both sides');
    const mid = new Decimal(bid.price).plus(offer.price).dividedBy(2);
    const reference = this.reference ?? mid;
    const bps = mid.minus(reference).dividedBy(reference).times(10_000);
    let signal: 'BUY' | 'SELL' | 'HOLD' = 'HOLD';
    if (bps.abs().greaterThanOrEqualTo(this.thresholdBps)) {
      signal = bps.isPositive() ? 'BUY' : 'SELL';
      this.reference = mid; // follow the price
    }
    this.reference ??= mid;
    return { mid, bps, signal };
  }
}

async function main(): Promise<number> {
  const client = await GatewayClient.connect({
    servers: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    account: env['ACCOUNT'] ?? 'default',
    ...(env['NATS_SUBJECT_PREFIX'] !== undefined ? { prefix: env['NATS_SUBJECT_PREFIX'] } : {}),
    name: 'example-price-follower',
  });
  const accountGroup = env['ACCOUNT_GROUP'] ?? (await client.accountGroups.natural())?.uuid;
  if (accountGroup === undefined) throw new GatewayError('NO_GROUP', 'the connector knows no account group');
  const follower = new PriceFollower(new Decimal(env['THRESHOLD_BPS'] ?? '5'));
  const maxUpdates = Number(env['MAX_UPDATES'] ?? '0');
  const request = {
    instrument: env['INSTRUMENT'] ?? 'BTC.USD',
    quantity: env['QUANTITY'] ?? '1',
    currency: env['CURRENCY'] ?? 'BTC',
    tenor: env['TENOR'] ?? 'T',
    accountGroup,
  };
  say(
    `following ${request.instrument} ${request.quantity} ${request.currency} ${request.tenor} in group ${accountGroup}`,
  );

  const tradable = client.prices.watch(request).pipe(filter((update) => update.tradable));
  await new Promise<void>((resolve, reject) => {
    const subscription = (maxUpdates > 0 ? tradable.pipe(take(maxUpdates)) : tradable).subscribe({
      next: (update) => {
        const { mid, bps, signal } = follower.onPrice(update);
        say(`price ${update.price.quoteId} mid ${mid.toFixed(4)} move ${bps.toFixed(2)} bps → ${signal}`);
      },
      error: reject,
      complete: resolve,
    });
    process.once('SIGINT', () => {
      subscription.unsubscribe(); // releases the lease at once
      resolve();
    });
  });
  await client.close();
  say('done');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const next = error instanceof GatewayError && error.nextStep !== undefined ? `\n  next: ${error.nextStep}` : '';
    process.stderr.write(`price-follower: ${error instanceof Error ? error.message : String(error)}${next}\n`);
    process.exit(1);
  },
);

/**
 * The venue subscriptions this connector was granted, by tag, in NATS KV (`GW_VENUE_SUBSCRIPTIONS_{account}`),
 * so that a restarted connector knows those an earlier life left at a venue that holds them across a
 * reconnect (venue/prices/earlier-subscriptions.ts). Writes never wait and never fail an order or a price: a
 * lost one only leaves a leftover unknown (as before this ledger), logged.
 */
import type { KvBucket } from '#bus';
import type { JsonLogger } from '#observability';
import type { SubscriptionLedger } from '../venue/index.js';

export class VenueSubscriptionLedger implements SubscriptionLedger {
  constructor(
    private readonly bucket: KvBucket,
    private readonly logger: JsonLogger,
  ) {}

  /** What an earlier life left remembered: tag → subscription id. */
  async load(): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    for (const tag of await this.bucket.keys()) {
      const entry = await this.bucket.get<{ subscriptionId?: unknown }>(tag);
      const subscriptionId = entry?.value.subscriptionId;
      if (typeof subscriptionId === 'string' && subscriptionId !== '') held.set(tag, subscriptionId);
    }
    return held;
  }

  remember(tag: string, subscriptionId: string): void {
    if (!KV_KEY.test(tag)) return; // a tag of ours always is; never a key the bucket refuses
    this.bucket.put(tag, { subscriptionId }).catch((error: unknown) => this.failed('remembered', error));
  }

  forget(tag: string): void {
    if (!KV_KEY.test(tag)) return;
    this.bucket.remove(tag).catch((error: unknown) => this.failed('forgotten', error));
  }

  private failed(what: string, error: unknown): void {
    this.logger.warn(`a venue subscription could not be ${what} in NATS KV; a restart may not know it`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

const KV_KEY = /^[-/_=.a-zA-Z0-9]{1,256}$/;

/**
 * The venue subscriptions this connector was granted, by tag, in NATS KV (`GW_VENUE_SUBSCRIPTIONS_{account}`),
 * so that a restarted connector knows those an earlier life left at a venue that holds them across a
 * reconnect (venue/prices/earlier-subscriptions.ts). Writes never wait and never fail an order or a price: a
 * lost one only leaves a leftover unknown (as before this ledger), logged.
 *
 * The ledger keeps what the bucket should hold in memory too: when the bucket is declared afresh (a nats-server
 * restarted with an empty store), every subscription still held is written again — else a restart after that
 * would not know them (outside tester: 0 live keys while 42 streams were live). And tags are never reused, so
 * each removed key would leave its purge marker for ever (3,042 markers next to 109 live keys after 17 min, all
 * read at every start): markers are purged at start and every `markerSweepMs`.
 */
import type { KvBucket } from '#bus';
import type { JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../venue/clock.js';
import type { SubscriptionLedger } from '../venue/index.js';

/** How often the purge markers of removed subscriptions are cleared. */
export const MARKER_SWEEP_MS = 5 * 60_000;

export class VenueSubscriptionLedger implements SubscriptionLedger {
  /** Tag → subscription id: what the bucket should hold now. */
  private readonly held = new Map<string, string>();
  private cancelSweep: Cancel | undefined;
  private sweeping = false;

  constructor(
    private readonly bucket: KvBucket,
    private readonly logger: JsonLogger,
    private readonly clock: VenueClock,
    private readonly markerSweepMs = MARKER_SWEEP_MS,
  ) {
    bucket.onDeclaredAfresh(() => this.rememberAllAgain());
  }

  /** What an earlier life left remembered: tag → subscription id (purge markers cleared first). */
  async load(): Promise<Map<string, string>> {
    await this.purgeMarkers();
    const found = new Map<string, string>();
    for (const tag of await this.bucket.keys()) {
      const entry = await this.bucket.get<{ subscriptionId?: unknown }>(tag);
      const subscriptionId = entry?.value.subscriptionId;
      if (typeof subscriptionId === 'string' && subscriptionId !== '') {
        found.set(tag, subscriptionId);
        this.held.set(tag, subscriptionId);
      }
    }
    return found;
  }

  /** Purges markers every `markerSweepMs` until `stop`. */
  start(): void {
    this.cancelSweep ??= this.clock.setInterval(() => void this.purgeMarkers(), this.markerSweepMs);
  }

  stop(): void {
    this.cancelSweep?.();
    this.cancelSweep = undefined;
  }

  remember(tag: string, subscriptionId: string): void {
    if (!KV_KEY.test(tag)) return; // a tag of ours always is; never a key the bucket refuses
    this.held.set(tag, subscriptionId);
    this.put(tag, subscriptionId);
  }

  forget(tag: string): void {
    if (!KV_KEY.test(tag)) return;
    this.held.delete(tag);
    this.bucket.remove(tag).catch((error: unknown) => this.failed('forgotten', error));
  }

  /** Subscriptions the bucket should hold now (tag → id). */
  get size(): number {
    return this.held.size;
  }

  /** The bucket was declared afresh, empty: everything still held is written again. */
  private rememberAllAgain(): void {
    if (this.held.size === 0) return;
    this.logger.info('NATS KV bucket of venue subscriptions declared afresh: the held ones written again', {
      subscriptions: this.held.size,
    });
    for (const [tag, subscriptionId] of this.held) this.put(tag, subscriptionId);
  }

  private put(tag: string, subscriptionId: string): void {
    this.bucket.put(tag, { subscriptionId }).catch((error: unknown) => this.failed('remembered', error));
  }

  private async purgeMarkers(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.bucket.purgeRemovedMarkers();
    } catch (error) {
      this.logger.warn('purge markers of released venue subscriptions could not be cleared from NATS KV', {
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.sweeping = false;
    }
  }

  private failed(what: 'remembered' | 'forgotten', error: unknown): void {
    const consequence =
      what === 'remembered'
        ? 'a restart may not know it (written again if the bucket is declared afresh)'
        : 'a restart may take it for a leftover (ended only if it streams)';
    this.logger.warn(`a venue subscription could not be ${what} in NATS KV; ${consequence}`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

const KV_KEY = /^[-/_=.a-zA-Z0-9]{1,256}$/;

/**
 * The order journal in KV (bucket `GW_EXEC_ORDERS_{account}`): `order.<orderId>` the order record,
 * `key.<strategyId>.<key>` the idempotency key → order mapping (the venue's clientRequestId is unique only per
 * account and may be reused, so the mapping is explicit and ours), `ref.<clientRequestId>` → the order (how a
 * venue trade's `clientRef` finds its order), `open.<orderId>` while the order is not done (and
 * `quote.<quoteId>`, the quote claims, written by `QuoteClaims`). Every write of a record after its creation is a compare-and-set on the revision its writer read:
 * an instance that lost an order to another one cannot overwrite it (fencing).
 */
import type { KvBucket } from '#bus';
import { MINTED_CLIENT_REQUEST_ID } from './client-request-id.js';
import type { OrderRecord } from './order-record.js';

export interface KeyEntry {
  orderId: string;
  clientRequestId: string;
  payloadHash: string;
  /** The order's acceptance time (epoch ms): its command cannot leave after `acceptedAt + ORDER_SEND_DEADLINE_MS`. */
  acceptedAt?: number;
  /** The quote the order claimed a share of (given back when its placing is found abandoned). */
  quoteId?: string;
}

export class JournalConflictError extends Error {
  constructor(orderId: string) {
    super(`order ${orderId} was written by someone else (compare-and-set failed)`);
    this.name = 'JournalConflictError';
  }
}

export class OrderJournal {
  constructor(private readonly bucket: KvBucket) {}

  /** The intent: the record and its open mark, before anything is sent. 'exists' only on an id collision. */
  async createOrder(record: OrderRecord): Promise<'created' | 'exists'> {
    const [, , created] = await Promise.all([
      this.bucket.put(openKey(record.orderId), { at: record.acceptedAt }),
      this.bucket.put(refKey(record.clientRequestId), { orderId: record.orderId }),
      this.bucket.createIfAbsent(orderKey(record.orderId), record),
    ]);
    return created;
  }

  /**
   * The order a venue trade's `clientRef` names, if this app placed it (undefined: not ours, not a clientRequestId
   * this app mints, or placed before the index existed).
   */
  async orderIdOf(clientRef: string): Promise<string | undefined> {
    if (!MINTED_CLIENT_REQUEST_ID.test(clientRef)) return undefined;
    const entry = await this.bucket.get<{ orderId?: unknown }>(refKey(clientRef));
    return typeof entry?.value.orderId === 'string' ? entry.value.orderId : undefined;
  }

  /** Whether the order is still open (its final state, risk record and position not all done yet). */
  async isOpen(orderId: string): Promise<boolean> {
    return (await this.bucket.get(openKey(orderId))) !== undefined;
  }

  /**
   * Claims the idempotency key for the order; 'exists' when another order holds it. With `fromRevision`, the key
   * passes from the abandoned order it held at that revision (compare-and-set: 'exists' if it moved on since).
   */
  async claimKey(
    strategyId: string,
    idempotencyKey: string,
    entry: KeyEntry,
    fromRevision?: number,
  ): Promise<'created' | 'exists'> {
    const key = keyKey(strategyId, idempotencyKey);
    if (fromRevision === undefined) return this.bucket.createIfAbsent(key, entry);
    return (await this.bucket.compareAndSet(key, entry, fromRevision)) === 'conflict' ? 'exists' : 'created';
  }

  /** The key's entry with its revision (for a compare-and-set hand-over). */
  async keyClaim(
    strategyId: string,
    idempotencyKey: string,
  ): Promise<{ entry: KeyEntry; revision: number } | undefined> {
    const stored = await this.bucket.get<KeyEntry>(keyKey(strategyId, idempotencyKey));
    return stored && { entry: stored.value, revision: stored.revision };
  }

  /**
   * What an intent that never became a whole order left behind (it was never sent): the open mark first (no sweep
   * resumes it from then on), then the record and its ref.
   */
  async discardIntent(orderId: string, clientRequestId: string): Promise<void> {
    await this.bucket.erase(openKey(orderId));
    await Promise.all([this.bucket.remove(orderKey(orderId)), this.bucket.remove(refKey(clientRequestId))]);
  }

  /** When the order's open mark was written (its acceptance time), if it has one. */
  async openedAt(orderId: string): Promise<number | undefined> {
    const mark = await this.bucket.get<{ at?: unknown }>(openKey(orderId));
    if (mark === undefined) return undefined;
    return typeof mark.value.at === 'number' ? mark.value.at : 0;
  }

  /**
   * Gives the key back after an intent that could not be recorded (the reply said so: nothing was sent), if it
   * names that order: a retry with the same key places the order anew instead of finding one never sent.
   */
  async releaseKey(strategyId: string, idempotencyKey: string, orderId: string): Promise<void> {
    const entry = await this.keyEntry(strategyId, idempotencyKey);
    if (entry?.orderId === orderId) await this.bucket.remove(keyKey(strategyId, idempotencyKey));
  }

  async keyEntry(strategyId: string, idempotencyKey: string): Promise<KeyEntry | undefined> {
    return (await this.bucket.get<KeyEntry>(keyKey(strategyId, idempotencyKey)))?.value;
  }

  async read(orderId: string): Promise<{ record: OrderRecord; revision: number } | undefined> {
    const entry = await this.bucket.get<OrderRecord>(orderKey(orderId));
    return entry && { record: entry.value, revision: entry.revision };
  }

  /** Compare-and-set; throws `JournalConflictError` when the record moved on since `revision`. */
  async update(record: OrderRecord, revision: number): Promise<number> {
    try {
      return await this.bucket.update(orderKey(record.orderId), record, revision);
    } catch (error) {
      if (isCasFailure(error)) throw new JournalConflictError(record.orderId);
      throw error;
    }
  }

  /** Ids of the orders not done yet (final ones leave once their event, risk and position are recorded). */
  async openOrderIds(): Promise<string[]> {
    const keys = await this.bucket.keys('open.>');
    return keys.map((key) => key.slice('open.'.length));
  }

  /**
   * The order is done: its open mark goes, leaving no marker (an order id is never opened again). Every sweep reads
   * `open.>`, which would otherwise deliver one marker per order finished within the bucket's age limit (t1 F4).
   */
  async close(orderId: string): Promise<void> {
    await this.bucket.erase(openKey(orderId));
  }

  /**
   * Removes the markers of open marks closed without `close`'s second step (an earlier life, or one stopped between
   * the two): at start-up, so the sweeps after it read only the open orders. Returns how many went.
   */
  async forgetClosedMarks(): Promise<number> {
    return this.bucket.purgeRemovedMarkers(0, 'open.>');
  }
}

function orderKey(orderId: string): string {
  return `order.${orderId}`;
}
function refKey(clientRequestId: string): string {
  return `ref.${clientRequestId}`;
}
function openKey(orderId: string): string {
  return `open.${orderId}`;
}
function keyKey(strategyId: string, idempotencyKey: string): string {
  return `key.${strategyId}.${Buffer.from(idempotencyKey, 'utf8').toString('base64url')}`;
}

function isCasFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 10071 || /wrong last sequence/i.test(error.message);
}

/**
 * Quote claims in the order journal bucket (`GW_EXEC_ORDERS_{account}`, key `quote.<quoteId>`): the orders of
 * every instance holding a share of one quote. Written by compare-and-set, so two instances admitting orders
 * on one quote a few ms apart cannot both take it. The first order on a quote costs one write (create), sent
 * with the intent; only a quote someone already claimed needs a read and a compare-and-set.
 */
import type { KvBucket } from '#bus';
import { decideClaim, giveBack, type QuoteClaim } from './quote-claim.js';

export type ClaimResult = { ok: true } | { ok: false; quoted: string; taken: string };

/** Compare-and-set attempts before a busy quote counts as taken (each loss means another order got in). */
const MAX_ATTEMPTS = 5;

export class QuoteClaims {
  constructor(private readonly bucket: KvBucket) {}

  /** Takes `quantity` of the quote (of `quoted` in all) for the order, unless other orders hold too much of it. */
  async claim(quoteId: string, orderId: string, quantity: string, quoted: string): Promise<ClaimResult> {
    const key = claimKey(quoteId);
    const first = decideClaim(undefined, orderId, quantity, quoted);
    if (!first.ok) return { ok: false, quoted, taken: first.taken };
    if ((await this.bucket.createIfAbsent(key, first.next)) === 'created') return { ok: true };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const current = await this.bucket.get<QuoteClaim>(key);
      const decision = decideClaim(current?.value, orderId, quantity, quoted);
      if (!decision.ok) return { ok: false, quoted, taken: decision.taken };
      if (decision.next === current?.value) return { ok: true };
      if ((await this.bucket.compareAndSet(key, decision.next, current?.revision ?? 0)) !== 'conflict')
        return { ok: true };
    }
    return { ok: false, quoted, taken: quoted };
  }

  /** Gives the order's share back (it is known not executed); idempotent. */
  async release(quoteId: string, orderId: string): Promise<void> {
    const key = claimKey(quoteId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const current = await this.bucket.get<QuoteClaim>(key);
      const next = giveBack(current?.value, orderId);
      if (next === undefined || current === undefined) return;
      if ((await this.bucket.compareAndSet(key, next, current.revision)) !== 'conflict') return;
    }
  }
}

function claimKey(quoteId: string): string {
  return `quote.${Buffer.from(quoteId, 'utf8').toString('base64url')}`;
}

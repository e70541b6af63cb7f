/**
 * The cross-instance claim on a quote's size (§2.2 rule 4): which orders hold how much of one quote. Each
 * instance's risk book sees only what it admitted (and, a few ms later, what the others published); the claim,
 * written by compare-and-set in KV, is what makes the sum of all instances' orders stay within the quote.
 * Pure: the decisions here, the reads and writes in `quote-claims.ts`.
 */
import { Decimal, parseDecimal, toPlain } from '#venue-api';

export interface QuoteClaim {
  v: 1;
  /** orderId → the quantity it took (decimal string). */
  orders: Record<string, string>;
}

export type ClaimDecision = { ok: true; next: QuoteClaim } | { ok: false; taken: string };

/** The size the orders holding the claim took together. */
export function takenOf(claim: QuoteClaim | undefined): Decimal {
  let taken = new Decimal(0);
  for (const quantity of Object.values(claim?.orders ?? {})) taken = taken.plus(parseDecimal(quantity));
  return taken;
}

/** Adds the order's quantity when the quote still has room for it (an order already holding it keeps it). */
export function decideClaim(
  current: QuoteClaim | undefined,
  orderId: string,
  quantity: string,
  quoted: string,
): ClaimDecision {
  if (current?.orders[orderId] !== undefined) return { ok: true, next: current };
  const taken = takenOf(current);
  if (taken.plus(parseDecimal(quantity)).gt(parseDecimal(quoted))) return { ok: false, taken: toPlain(taken) };
  return { ok: true, next: { v: 1, orders: { ...(current?.orders ?? {}), [orderId]: quantity } } };
}

/** The claim without the order (known not executed); undefined when it holds nothing of the order. */
export function giveBack(current: QuoteClaim | undefined, orderId: string): QuoteClaim | undefined {
  if (current?.orders[orderId] === undefined) return undefined;
  const { [orderId]: _given, ...orders } = current.orders;
  return { v: 1, orders };
}

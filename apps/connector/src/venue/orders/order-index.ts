import type { OrderReply } from '#venue-api';

/** Settled orders whose quote membership is still kept (a quote lives 10 minutes; ≤ 4 orders/s). */
const SETTLED_QUOTES_KEPT = 10_000;

/**
 * Finds the order a venue reply is about. The spec does not show the reply's fields (§4.2), so a reply
 * may lack `clientRequestId`: it is then matched by the `transactionId` an earlier reply or order-state
 * record gave, or by the `quoteId` the order was sent on — only when exactly one order this process sent used
 * that quote (several orders may execute on one quote, §2.2 rule 4): a settled order stays counted on its quote,
 * so a late reply of it is never taken for a later order's on the same quote.
 */
export class OrderIndex {
  private readonly byTransaction = new Map<string, string>();
  private readonly byQuote = new Map<string, Set<string>>();
  /** Keys held for each order, so that forgetting it costs no scan. */
  private readonly keys = new Map<string, { quotes: string[]; transactions: string[] }>();
  /** Settled orders' quote memberships, oldest first, dropped beyond `SETTLED_QUOTES_KEPT`. */
  private readonly settledQuotes: Array<[quoteId: string, clientRequestId: string]> = [];

  quote(quoteId: string, clientRequestId: string): void {
    let ids = this.byQuote.get(quoteId);
    if (ids === undefined) this.byQuote.set(quoteId, (ids = new Set()));
    if (ids.has(clientRequestId)) return;
    ids.add(clientRequestId);
    this.keysOf(clientRequestId).quotes.push(quoteId);
  }

  transaction(transactionId: string, clientRequestId: string): void {
    if (this.byTransaction.get(transactionId) === clientRequestId) return;
    this.byTransaction.set(transactionId, clientRequestId);
    this.keysOf(clientRequestId).transactions.push(transactionId);
  }

  correlate(reply: Pick<OrderReply, 'clientRequestId' | 'transactionId' | 'quoteId'>): string | undefined {
    if (reply.clientRequestId !== undefined) return reply.clientRequestId;
    const byTransaction = reply.transactionId === undefined ? undefined : this.byTransaction.get(reply.transactionId);
    if (byTransaction !== undefined) return byTransaction;
    const ids = reply.quoteId === undefined ? undefined : this.byQuote.get(reply.quoteId);
    if (ids === undefined || ids.size !== 1) return undefined;
    return ids.values().next().value;
  }

  /** The order settled: a later duplicate must carry its clientRequestId to be recognised. */
  forget(clientRequestId: string): void {
    const keys = this.keys.get(clientRequestId);
    if (keys === undefined) return;
    this.keys.delete(clientRequestId);
    for (const transactionId of keys.transactions) {
      if (this.byTransaction.get(transactionId) === clientRequestId) this.byTransaction.delete(transactionId);
    }
    for (const quoteId of keys.quotes) this.settledQuotes.push([quoteId, clientRequestId]);
    while (this.settledQuotes.length > SETTLED_QUOTES_KEPT) {
      const [quoteId, id] = this.settledQuotes.shift() as [string, string];
      const ids = this.byQuote.get(quoteId);
      ids?.delete(id);
      if (ids?.size === 0) this.byQuote.delete(quoteId);
    }
  }

  private keysOf(clientRequestId: string): { quotes: string[]; transactions: string[] } {
    let keys = this.keys.get(clientRequestId);
    if (keys === undefined) this.keys.set(clientRequestId, (keys = { quotes: [], transactions: [] }));
    return keys;
  }
}

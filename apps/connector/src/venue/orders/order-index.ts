import type { OrderReply } from '#venue-api';

/**
 * Finds the order a venue reply is about. The spec does not show the reply's fields (§4.2), so a reply
 * may lack `clientRequestId`: it is then matched by the `transactionId` an earlier reply or order-state
 * record gave, or by the `quoteId` the order was sent on (only while exactly one live order used it).
 */
export class OrderIndex {
  private readonly byTransaction = new Map<string, string>();
  private readonly byQuote = new Map<string, Set<string>>();
  /** Keys held for each order, so that forgetting it costs no scan. */
  private readonly keys = new Map<string, { quotes: string[]; transactions: string[] }>();

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
    for (const quoteId of keys.quotes) {
      const ids = this.byQuote.get(quoteId);
      ids?.delete(clientRequestId);
      if (ids?.size === 0) this.byQuote.delete(quoteId);
    }
  }

  private keysOf(clientRequestId: string): { quotes: string[]; transactions: string[] } {
    let keys = this.keys.get(clientRequestId);
    if (keys === undefined) this.keys.set(clientRequestId, (keys = { quotes: [], transactions: [] }));
    return keys;
  }
}

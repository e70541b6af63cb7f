/**
 * Operator-injected faults of the trading half (admin API `/admin/faults/ws/...`). Plain state read by the
 * socket, subscription and order code at the one point each fault applies.
 */
export class WsFaults {
  /** Added before an order's PENDING reply and its outcome (the order is recorded at once). */
  orderReplyDelayMs = 0;
  /** The next N final order outcomes are recorded but their frames are not sent ("reply lost"). */
  dropOrderOutcomes = 0;
  /** The next N accepted orders end INDETERMINATE (the trade is booked: it "may have filled"). */
  indeterminateOrders = 0;
  /** The next N subscribes that pass validation fail with RFS100013. */
  failSubscribes = 0;
  /** The next N orders are refused with `rejectQuoteCode` before execution. */
  rejectQuotes = 0;
  rejectQuoteCode = 'RFS100019';

  takeDropOrderOutcome(): boolean {
    return this.take('dropOrderOutcomes');
  }

  takeIndeterminate(): boolean {
    return this.take('indeterminateOrders');
  }

  takeFailSubscribe(): boolean {
    return this.take('failSubscribes');
  }

  takeRejectQuote(): string | undefined {
    return this.take('rejectQuotes') ? this.rejectQuoteCode : undefined;
  }

  clear(): void {
    this.orderReplyDelayMs = 0;
    this.dropOrderOutcomes = 0;
    this.indeterminateOrders = 0;
    this.failSubscribes = 0;
    this.rejectQuotes = 0;
    this.rejectQuoteCode = 'RFS100019';
  }

  snapshot(): Record<string, number | string> {
    return {
      orderReplyDelayMs: this.orderReplyDelayMs,
      dropOrderOutcomes: this.dropOrderOutcomes,
      indeterminateOrders: this.indeterminateOrders,
      failSubscribes: this.failSubscribes,
      rejectQuotes: this.rejectQuotes,
      rejectQuoteCode: this.rejectQuoteCode,
    };
  }

  private take(key: 'dropOrderOutcomes' | 'indeterminateOrders' | 'failSubscribes' | 'rejectQuotes'): boolean {
    if (this[key] <= 0) return false;
    this[key] -= 1;
    return true;
  }
}

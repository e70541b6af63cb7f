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
  /**
   * The next N accepted orders that execute send a provisional FAILED (`EXECUTION_REJECTED`) before their real
   * final SUCCESS: a venue contradicting itself (spec-gaps K7). The trade is booked; order state says SUCCESS.
   */
  contradictOrders = 0;
  /** The next N subscribes that pass validation fail with RFS100013. */
  failSubscribes = 0;
  /**
   * The next N order frames are read `lateOrderReadMs` late, and every frame behind them on the same socket after
   * them (a loaded venue host or a slow path: the pace check, the order and its answers all happen then).
   */
  lateOrderReads = 0;
  lateOrderReadMs = 0;
  /** The next N orders are refused with `rejectQuoteCode` before execution. */
  rejectQuotes = 0;
  rejectQuoteCode = 'RFS100019';
  /**
   * The next N client frames of a messageType are dropped as over the account's message budget (W9, W14: an
   * `error` frame MESSAGE_RATE_LIMITED, the socket stays open) — what a lagging venue does to frames that bunch.
   */
  readonly rateLimitFrames = new Map<string, number>();

  /** True when this client frame is to be dropped as rate limited (counts one off). */
  takeRateLimitFrame(messageType: string): boolean {
    const left = this.rateLimitFrames.get(messageType);
    if (left === undefined || left <= 0) return false;
    if (left === 1) this.rateLimitFrames.delete(messageType);
    else this.rateLimitFrames.set(messageType, left - 1);
    return true;
  }

  takeDropOrderOutcome(): boolean {
    return this.take('dropOrderOutcomes');
  }

  takeIndeterminate(): boolean {
    return this.take('indeterminateOrders');
  }

  takeContradictOrder(): boolean {
    return this.take('contradictOrders');
  }

  takeFailSubscribe(): boolean {
    return this.take('failSubscribes');
  }

  /** How late to read this order frame, or undefined to read it now. */
  takeLateOrderRead(): number | undefined {
    return this.take('lateOrderReads') ? this.lateOrderReadMs : undefined;
  }

  takeRejectQuote(): string | undefined {
    return this.take('rejectQuotes') ? this.rejectQuoteCode : undefined;
  }

  clear(): void {
    this.orderReplyDelayMs = 0;
    this.dropOrderOutcomes = 0;
    this.indeterminateOrders = 0;
    this.contradictOrders = 0;
    this.failSubscribes = 0;
    this.rejectQuotes = 0;
    this.rejectQuoteCode = 'RFS100019';
    this.lateOrderReads = 0;
    this.lateOrderReadMs = 0;
    this.rateLimitFrames.clear();
  }

  snapshot(): Record<string, number | string> {
    return {
      orderReplyDelayMs: this.orderReplyDelayMs,
      dropOrderOutcomes: this.dropOrderOutcomes,
      indeterminateOrders: this.indeterminateOrders,
      contradictOrders: this.contradictOrders,
      failSubscribes: this.failSubscribes,
      rejectQuotes: this.rejectQuotes,
      rejectQuoteCode: this.rejectQuoteCode,
      lateOrderReads: this.lateOrderReads,
      lateOrderReadMs: this.lateOrderReadMs,
      ...Object.fromEntries([...this.rateLimitFrames].map(([type, count]) => [`rateLimitFrames.${type}`, count])),
    };
  }

  private take(
    key:
      | 'dropOrderOutcomes'
      | 'indeterminateOrders'
      | 'contradictOrders'
      | 'failSubscribes'
      | 'rejectQuotes'
      | 'lateOrderReads',
  ): boolean {
    if (this[key] <= 0) return false;
    this[key] -= 1;
    return true;
  }
}

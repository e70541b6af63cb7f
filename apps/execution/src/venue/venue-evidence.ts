/**
 * The venue's own records of an order, read over REST with the execution app's share of the REST budget
 * (`VENUE_REST_REQUESTS_PER_SECOND`, default 4): the trade list filtered by `clientRef` (§4.5, the only
 * source after the order-state endpoint's 24 h retention) and the order-state endpoint (§4.10). A failed
 * call is `unreachable`, never "no such order".
 */
import type { VenueRestClient } from '#venue-api';
import type { VenueEvidence } from '../orders/order-machine.js';

export interface EvidenceListener {
  /** `reason`: why the call failed (`unreachable` only): the error's name and message, never a response body. */
  attempt(source: 'trade-list' | 'order-state', result: 'found' | 'none' | 'unreachable', reason?: string): void;
}

/** Trades asked for by clientRef at once (one order has one trade: more means the filter was not applied). */
const TRADE_PAGE = 50;

export class VenueRecords {
  /** Outcome of the last call: whether the venue answered. */
  lastReachable: boolean | undefined;

  constructor(
    private readonly client: VenueRestClient,
    private readonly listener: EvidenceListener,
  ) {}

  async evidence(clientRequestId: string, ask: { orderState: boolean; trades: boolean }): Promise<VenueEvidence> {
    const evidence: VenueEvidence = {};
    if (ask.trades) {
      try {
        const page = await this.client.listTrades({ clientRef: clientRequestId, max: TRADE_PAGE });
        const found = page.data.some((t) => t.clientRef === clientRequestId);
        if (!found && page.rows > page.data.length) {
          // A row the client could not read may be this order's trade: "none" would be no proof (E1).
          evidence.trades = 'unreachable';
          this.listener.attempt('trade-list', 'unreachable', 'the trade list held a row that could not be read');
        } else if (!found && (page.rows >= TRADE_PAGE || page.total > page.rows)) {
          // A full page, or more matches than one page holds (a venue not applying the filter): the trade may be
          // on a page not read — "none" would be no proof (§4.5: paginate until a page holds fewer than max).
          evidence.trades = 'unreachable';
          this.listener.attempt('trade-list', 'unreachable', 'the trade list holds more rows than one page read');
        } else {
          evidence.trades = page.data;
          this.listener.attempt('trade-list', found ? 'found' : 'none');
        }
        this.lastReachable = true;
      } catch (error) {
        evidence.trades = 'unreachable';
        this.listener.attempt('trade-list', 'unreachable', reasonOf(error));
        this.lastReachable = false;
      }
    }
    if (ask.orderState) {
      try {
        evidence.orderState = await this.client.getOrderState(clientRequestId);
        this.listener.attempt('order-state', evidence.orderState.length > 0 ? 'found' : 'none');
        this.lastReachable = this.lastReachable !== false;
      } catch (error) {
        evidence.orderState = 'unreachable';
        this.listener.attempt('order-state', 'unreachable', reasonOf(error));
        this.lastReachable = false;
      }
    }
    return evidence;
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown error';
}

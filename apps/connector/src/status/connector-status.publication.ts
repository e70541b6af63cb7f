import { interval, merge, map, type Subscription } from 'rxjs';
import { topicsOf, type ConnectorStatus, type SessionState, type Subjects } from '#contracts';
import type { BusPublisher } from '#bus';
import type { OrderVenue, PriceStreams, SessionView } from '../nats/venue-ports.js';

/**
 * Publishes `ConnectorStatus` on the account's status subject (captured by a last-value stream) on every
 * session state change and every `intervalMs`, so a dashboard or a strategy reads the current state at
 * once and sees it refresh. It carries the order queue's pace (`orderQueuePaceMs`): the execution app estimates from
 * it how long an order waits behind those queued, and refuses at intake one that cannot leave before its deadline.
 */
export class ConnectorStatusPublication {
  private subscription: Subscription | undefined;
  private state: { state: SessionState; since: number } = { state: 'idle', since: Date.now() };
  /** When this life started publishing its status: a restart is a later value (ConnectorStatus.startedAt). */
  private readonly startedAt: number;
  /**
   * Since when the session has not been open (undefined while open): `since` alone moves at every retry of a
   * session that never opens (outside tester: "backoff since" read a few seconds ago, 10 minutes into a wrong secret).
   */
  private notOpenSince: number | undefined;
  private everOpen = false;

  constructor(
    private readonly subjects: Subjects,
    private readonly session: SessionView,
    private readonly registry: PriceStreams,
    private readonly orders: Pick<OrderVenue, 'orderQueuePaceMs'>,
    private readonly publisher: BusPublisher,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.notOpenSince = now();
  }

  start(): void {
    this.subscription ??= merge(
      this.session.state$.pipe(map((state) => this.entered(state))),
      interval(this.intervalMs),
    ).subscribe(() => this.publish());
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private entered(state: { state: SessionState; since: number }): void {
    if (state.state === 'open') {
      this.everOpen = true;
      this.notOpenSince = undefined;
    } else if (this.state.state === 'open' || this.notOpenSince === undefined) {
      this.notOpenSince = state.since;
    }
    this.state = state;
  }

  current(): ConnectorStatus {
    const now = this.now();
    const lastPriceAt = this.registry.lastPriceAt();
    const failure = this.session.lastFailureSummary;
    return {
      v: 1,
      account: this.subjects.account,
      sessionState: this.state.state,
      since: this.state.since,
      ...(this.notOpenSince !== undefined ? { notOpenSince: this.notOpenSince } : {}),
      everOpen: this.everOpen,
      ...(failure !== undefined && this.state.state !== 'open' ? { lastFailure: failure } : {}),
      reconnects: this.session.reconnects,
      subscriptions: this.registry.counts(),
      ...(lastPriceAt !== undefined ? { lastPriceAgeMs: Math.max(0, now - lastPriceAt) } : {}),
      orderQueuePaceMs: this.orders.orderQueuePaceMs(),
      startedAt: this.startedAt,
      publishedAt: now,
    };
  }

  publish(): void {
    this.publisher.publishTo(topicsOf(this.subjects).connectorStatus, this.current());
  }
}

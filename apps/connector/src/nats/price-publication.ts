import type { Observable } from 'rxjs';
import type { PriceMessage, Subjects } from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import { LazyCount } from '../venue/prices/lazy-count.js';
import { PriceFeed } from '../venue/prices/price-feed.js';
import { PriceJson } from './price-json.js';
import {
  priceArrives,
  recordSettles,
  SETTLED,
  UNRECORDED,
  type FirstPriceHold,
  type HoldStep,
  type SubjectRecordResult,
} from './first-price-hold.js';

/** What is constant per stream: its subject and its JSON writer, worked out on its first message. */
interface PriceRoute {
  readonly instrument: string;
  readonly accountGroup: string;
  readonly tenor: string;
  readonly currency: string;
  readonly subject: string;
  readonly json: PriceJson;
  /** Until its subject is recorded, the stream's prices wait (first-price-hold.ts); then `settled` for good. */
  hold: FirstPriceHold;
  /** Its record was asked for (a stream whose first message is `stopped` never is): removed when it ends. */
  remembered: boolean;
}

/** Where the subjects of the streams being published are kept across a crash (published-price-subjects.ts). */
export interface PriceSubjectLedger {
  /** Settles once the record is durable, or failed / timed out; never rejects. */
  record(subject: string): Promise<{ readonly result: SubjectRecordResult; readonly error?: string }>;
  ended(subject: string): void;
}

/**
 * Puts every PriceMessage on its price subject with a core publish: the venue session never waits for
 * NATS or for a strategy (the client buffers; while NATS is down the bus drops and counts). The subject
 * and the constant part of the JSON of each stream are computed once. The route is found by one Map
 * lookup on the stream's quantity and a comparison of its other key strings: the registry hands the same
 * string objects with every update, so the hash is cached, the comparisons are pointer checks, and no key
 * string is built per message. A new stream's first price waits for its subject's record (first-price-hold.ts,
 * without blocking anything else); every later one goes straight out.
 */
export class PricePublication {
  /** quantity → the routes of the streams of that size (usually one). */
  private readonly routes = new Map<string, PriceRoute[]>();
  /** Counted in plain numbers, handed to the counter when it is read: an `inc()` per message is measurable. */
  private readonly published: Record<PriceMessage['status'], LazyCount>;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: BusPublisher,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly logger: JsonLogger,
    private readonly ledger?: PriceSubjectLedger,
  ) {
    const counter = metrics.pricesPublished;
    this.published = {
      live: new LazyCount(counter, { status: 'live' }),
      stale: new LazyCount(counter, { status: 'stale' }),
      stopped: new LazyCount(counter, { status: 'stopped' }),
    };
  }

  /** The registry's feed is listened to directly (a function call per price); any other Observable is subscribed. */
  start(prices$: Observable<PriceMessage>): void {
    if (this.unsubscribe !== undefined) return;
    if (prices$ instanceof PriceFeed) {
      this.unsubscribe = prices$.listen((price) => this.publish(price));
      return;
    }
    const subscription = prices$.subscribe({
      next: (price) => this.publish(price),
      error: (error: unknown) => this.logger.error('price stream ended with an error', { error: String(error) }),
    });
    this.unsubscribe = () => subscription.unsubscribe();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  publish(price: PriceMessage): void {
    const route = this.routeOf(price);
    if (route === undefined) return;
    if (route.hold.stage !== 'settled') this.apply(route, priceArrives(route.hold, price));
    else this.send(route, price);
  }

  private send(route: PriceRoute, price: PriceMessage): void {
    if (this.publisher.publishJson(route.subject, route.json.write(price), 'price')) this.published[price.status].inc();
    if (price.status === 'stopped') this.forget(price, route);
  }

  /** A step of the stream's first-price hold: its record asked for, what it let go published. */
  private apply(route: PriceRoute, step: HoldStep): void {
    route.hold = step.next;
    if (step.record) this.record(route);
    for (const price of step.send) this.send(route, price);
  }

  /** Before its first live price goes out: a crash right after must find the subject (once per stream's life). */
  private record(route: PriceRoute): void {
    const ledger = this.ledger;
    if (ledger === undefined) return;
    route.remembered = true;
    void ledger
      .record(route.subject)
      .then(({ result, error }) => {
        this.metrics.priceSubjectRecords.inc({ result });
        const step = recordSettles(route.hold, result);
        if (step.degraded) {
          this.logger.warn("a new price stream's subject could not be recorded; its prices go out unrecorded", {
            subject: route.subject,
            result,
            ...(error !== undefined && { error }),
            consequence:
              'after a crash its last price is left to age out (PRICE_MAX_AGE_MS) instead of being marked stopped',
          });
        }
        this.apply(route, step);
      })
      .catch((error: unknown) =>
        this.logger.error("a new price stream's held prices could not be let out", {
          subject: route.subject,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
  }

  private routeOf(price: PriceMessage): PriceRoute | undefined {
    const routes = this.routes.get(price.quantity);
    if (routes !== undefined) {
      for (let i = 0; i < routes.length; i++) {
        const route = routes[i] as PriceRoute;
        if (
          route.instrument === price.instrument &&
          route.accountGroup === price.accountGroup &&
          route.tenor === price.tenor &&
          route.currency === price.currency
        )
          return route;
      }
    }
    return this.addRoute(price);
  }

  private addRoute(price: PriceMessage): PriceRoute | undefined {
    let subject: string;
    try {
      subject = this.subjects.price(price);
    } catch (error) {
      this.metrics.pricesUnroutable.inc();
      this.logger.warn('price cannot form a subject; dropped', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
    const route: PriceRoute = {
      instrument: price.instrument,
      accountGroup: price.accountGroup,
      tenor: price.tenor,
      currency: price.currency,
      subject,
      json: new PriceJson(price),
      hold: this.ledger === undefined ? SETTLED : UNRECORDED,
      remembered: false,
    };
    const routes = this.routes.get(price.quantity);
    if (routes === undefined) this.routes.set(price.quantity, [route]);
    else routes.push(route);
    return route;
  }

  /**
   * The connector is stopping: every stream it still publishes gets a last `stopped` message, so the
   * last-value stream tells a late joiner the truth instead of showing this connector's last quote as live.
   */
  stopAll(): void {
    for (const [quantity, routes] of [...this.routes]) {
      for (const route of [...routes]) {
        this.publish({
          v: 1,
          status: 'stopped',
          accountGroup: route.accountGroup,
          instrument: route.instrument,
          tenor: route.tenor,
          currency: route.currency,
          quantity,
          code: 'CONNECTOR_STOPPED',
          message: 'the connector stopped; no prices until it is back',
        });
      }
    }
  }

  /** A stopped stream's route goes, so the map holds only streams that may still publish. */
  private forget(price: PriceMessage, route: PriceRoute): void {
    const routes = this.routes.get(price.quantity);
    if (routes === undefined) return;
    const index = routes.indexOf(route);
    if (index >= 0) routes.splice(index, 1);
    if (routes.length === 0) this.routes.delete(price.quantity);
    if (route.remembered) this.ledger?.ended(route.subject);
  }
}

/**
 * Orders through the execution app (docs/execution.md): `place(...)` sends one order (request/reply on
 * `{prefix}.{account}.exec.order.place`) and follows it on its durable events
 * (`…exec.order.event.{strategyId}.{orderId}`, replayed from the first, so none is missed). The returned
 * `PlacedOrder` is awaitable: it resolves to the order's final view (SUCCESS or FAILED), or — when the
 * venue's outcome stays open longer than `settleWaitMs` — to its latest view (state SENT, UNKNOWN,
 * INDETERMINATE or PENDING, `final: false`; SENT: the command is with the connector, not necessarily at the venue). An order of unknown outcome is never reported as failed, and never re-placed.
 */
import { randomUUID } from 'node:crypto';
import { DeliverPolicy } from '@nats-io/jetstream';
import { Observable, ReplaySubject } from 'rxjs';
import {
  ExecutionStreamName,
  ExecutionSubjects,
  type GetOrderRequest,
  type ListOrdersRequest,
  type OrderAccepted,
  type OrderEvent,
  type OrderView,
  type PlaceOrderRequest,
  type StrategyPositions,
} from '#contracts';
import { gatewayRequest, type ClientContext } from './client-context.js';
import { ClientErrorCode, GatewayError } from './gateway-error.js';

/**
 * An order as the execution app takes it (`PlaceOrderRequest`, libs/contracts), its idempotency key optional:
 * it names the order for ever (per strategy), a repeat answers the same order; default, a new uuid.
 */
export type OrderRequest = Omit<PlaceOrderRequest, 'idempotencyKey'> & { idempotencyKey?: string };

export interface PlaceOptions {
  /** How long to wait for a final state once the order is accepted; then the latest view (default 60 000). */
  settleWaitMs?: number;
}

/** An order in flight: awaitable for its outcome; its events as an Observable. */
export class PlacedOrder implements Promise<OrderView> {
  readonly [Symbol.toStringTag] = 'PlacedOrder';

  constructor(
    /** The key the order was sent with (the caller's, or a generated one): a retry must pass the same. */
    readonly idempotencyKey: string,
    /**
     * The execution app's answer: the order id and its first view. Rejects with a GatewayError on refusal, and
     * with an `OutcomeUnknownError` (carrying `idempotencyKey`) when no answer came: place it again with the same
     * key, never a new one.
     */
    readonly accepted: Promise<OrderAccepted>,
    /** Every state the order enters, in order, from the first (completes after the final one). */
    readonly events: Observable<OrderEvent>,
    /** The final view, or the latest after `settleWaitMs` (UNKNOWN stays UNKNOWN: never failed). */
    readonly outcome: Promise<OrderView>,
  ) {}

  then<A = OrderView, B = never>(
    onFulfilled?: ((value: OrderView) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.outcome.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<OrderView | B> {
    return this.outcome.catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<OrderView> {
    return this.outcome.finally(onFinally);
  }
}

export class OrdersApi {
  readonly subjects: ExecutionSubjects;

  constructor(private readonly context: ClientContext) {
    this.subjects = new ExecutionSubjects(context.subjects);
  }

  /** Places one order and follows it. */
  place(request: OrderRequest, options: PlaceOptions = {}): PlacedOrder {
    const idempotencyKey = request.idempotencyKey ?? randomUUID();
    const accepted = gatewayRequest<OrderAccepted>(
      this.context,
      this.subjects.place,
      withoutUndefined({ ...request, idempotencyKey }),
      { what: 'order', idempotencyKey },
    );
    const events = new ReplaySubject<OrderEvent>();
    let latest: OrderView | undefined;
    const outcome = accepted.then(
      (reply) =>
        new Promise<OrderView>((resolve) => {
          latest = reply.order;
          if (reply.order.final) {
            resolve(reply.order);
          }
          const timer = setTimeout(() => resolve(latest ?? reply.order), options.settleWaitMs ?? 60_000);
          timer.unref?.();
          this.follow(reply.order.strategyId, reply.orderId).subscribe({
            next: (event) => {
              latest = event.order;
              events.next(event);
              if (event.order.final) {
                clearTimeout(timer);
                resolve(event.order);
                events.complete();
              }
            },
            error: (error: unknown) => {
              clearTimeout(timer);
              events.error(error);
              resolve(latest ?? reply.order);
            },
          });
        }),
    );
    accepted.catch((error: unknown) => events.error(error));
    // A refusal rejects `outcome` too: a caller that handled it on `accepted` must not die of it unhandled.
    outcome.catch(() => undefined);
    return new PlacedOrder(idempotencyKey, accepted, events.asObservable(), outcome);
  }

  /** The events of one order from its first, live after; completes after the final one. */
  follow(strategyId: string, orderId: string): Observable<OrderEvent> {
    return new Observable<OrderEvent>((subscriber) => {
      let stopped = false;
      let stop: (() => void) | undefined;
      void (async () => {
        const consumer = await this.context.js.consumers.get(
          ExecutionStreamName.orderEvents(this.context.subjects.account),
          {
            filter_subjects: this.subjects.orderEvent(strategyId, orderId),
            deliver_policy: DeliverPolicy.All,
          },
        );
        try {
          const messages = await consumer.consume();
          stop = () => void messages.stop();
          if (stopped) stop();
          for await (const message of messages) {
            const event = message.json<OrderEvent>();
            subscriber.next(event);
            if (event.order.final) {
              subscriber.complete();
              break;
            }
          }
        } finally {
          // else the server keeps it until its inactivity threshold (5 min): one per order an algo followed
          await consumer.delete().catch(() => undefined);
        }
      })().catch((error: unknown) =>
        subscriber.error(
          new GatewayError(
            ClientErrorCode.StreamMissing,
            `cannot follow order ${orderId}: ${error instanceof Error ? error.message : String(error)}`,
            'is the execution app running for this account? `gw status` lists the streams',
          ),
        ),
      );
      return () => {
        stopped = true;
        stop?.();
      };
    });
  }

  /** One order by id, or by strategy and idempotency key. */
  async get(request: GetOrderRequest): Promise<OrderView> {
    return (await gatewayRequest<{ ok: true; order: OrderView }>(this.context, this.subjects.get, request)).order;
  }

  /** Open (not final) or unresolved (UNKNOWN, INDETERMINATE) orders; default open. */
  async list(request: ListOrdersRequest = {}): Promise<OrderView[]> {
    return (await gatewayRequest<{ ok: true; orders: OrderView[] }>(this.context, this.subjects.list, request)).orders;
  }

  /** A strategy's net positions from its fills. */
  async positions(strategyId: string): Promise<StrategyPositions> {
    return (
      await gatewayRequest<{ ok: true; positions: StrategyPositions }>(this.context, this.subjects.positions, {
        strategyId,
      })
    ).positions;
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

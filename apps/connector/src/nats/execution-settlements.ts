/**
 * The execution app's final order events (`…exec.order.event.{strategyId}.{orderId}`, core subscription): an order
 * this connector still reconciles (UNKNOWN or INDETERMINATE at the venue), or awaits after a PENDING reply, that execution settled from the venue's
 * own records (its trade list, after the order-state endpoint could not) is settled here too — the connector stops
 * asking, its mark becomes final, and it no longer counts in `connector_orders_unresolved` (outside tester: the
 * critical `GatewayOrderOutcomeUnresolved` kept firing for orders settled SUCCESS). Nothing is published: the
 * connector's outcome stream carries the venue's word only. An event missed while the connector was down leaves
 * the order to its own lookups, as before.
 */
import { ExecutionSubjects, type Subjects } from '#contracts';
import type { BusCore, BusSubscription } from '#bus';
import type { JsonLogger } from '#observability';
import type { OrderMarks } from './order-marks.js';

/** What the connector needs of the order side. */
export interface SettledElsewhere {
  /** True when the order was being reconciled here and is now settled (its cell gone). */
  settledElsewhere(clientRequestId: string, status: 'SUCCESS' | 'FAILED'): boolean;
}

export class ExecutionSettlements {
  private subscription: BusSubscription | undefined;

  constructor(
    private readonly subjects: Subjects,
    private readonly core: BusCore,
    private readonly orders: SettledElsewhere,
    private readonly marks: Pick<OrderMarks, 'record'>,
    private readonly logger: JsonLogger,
  ) {}

  start(): void {
    this.subscription ??= this.core.subscribe(new ExecutionSubjects(this.subjects).allOrderEvents, (message) => {
      let value: unknown;
      try {
        value = message.json<unknown>();
      } catch {
        return; // not an order event of ours: nothing to settle
      }
      const settled = finalOf(value);
      if (settled === undefined) return;
      if (!this.orders.settledElsewhere(settled.clientRequestId, settled.status)) return;
      this.logger.info('order settled by the execution app from the venue’s records; no longer reconciled here', {
        clientRequestId: settled.clientRequestId,
        status: settled.status,
        evidence: settled.evidence,
      });
      this.marks.record(settled.clientRequestId, settled.status).catch((error: unknown) =>
        this.logger.warn('order mark not moved to final; reconciled again at the next start', {
          clientRequestId: settled.clientRequestId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}

/** A final order event's clientRequestId and state; undefined for anything else (never throws). */
export function finalOf(
  value: unknown,
): { clientRequestId: string; status: 'SUCCESS' | 'FAILED'; evidence: string } | undefined {
  const order = (value as { order?: Record<string, unknown> } | null)?.order;
  if (order === null || typeof order !== 'object' || order['final'] !== true) return undefined;
  const { clientRequestId, state, evidence } = order;
  if (typeof clientRequestId !== 'string' || clientRequestId.length === 0 || clientRequestId.length > 64)
    return undefined;
  if (state !== 'SUCCESS' && state !== 'FAILED') return undefined;
  return { clientRequestId, status: state, evidence: typeof evidence === 'string' ? evidence.slice(0, 40) : '' };
}

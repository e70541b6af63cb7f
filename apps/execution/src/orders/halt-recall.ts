/**
 * A halt also stops what was accepted before it: the orders of the halted scope whose commands may not have
 * reached the venue yet (INTENT_RECORDED, SENT) are recalled (OrderRecall on `…order.recall`): the connector
 * refuses to send each one whose frame has not left (FAILED `RECALLED`, never sent). Best effort over core NATS;
 * what a lost recall lets through is still bounded by each command's send deadline.
 */
import { RECALL_MAX_IDS, type OrderRecall, type Subjects, type TradingStateEntry } from '#contracts';
import type { BusPublisher } from '#bus';
import type { JsonLogger } from '#observability';
import type { Counter } from 'prom-client';
import { appliesTo } from '../risk/risk-gate.js';
import type { OrderRecord } from './order-record.js';
import { BoundedMap } from '#actors';

/** Orders recalled already (each is recalled once). */
const REMEMBERED = 10_000;

/** States in which an order's command may not have reached the venue yet. */
const UNSENT_STATES = new Set(['INTENT_RECORDED', 'SENT']);

/** The clientRequestIds to recall for this trading state: none unless HALTED. Pure. */
export function ordersToRecall(entry: TradingStateEntry, open: readonly OrderRecord[]): string[] {
  if (entry.state !== 'HALTED') return [];
  return open.filter((r) => UNSENT_STATES.has(r.state) && appliesTo(entry, r)).map((r) => r.clientRequestId);
}

/** Recalls on each halt the orders not recalled before (risk may tell the same halt twice: its write and its watch). */
export class HaltRecall {
  private readonly recalled = new BoundedMap<string, true>(REMEMBERED);

  constructor(
    private readonly deps: {
      open: () => readonly OrderRecord[];
      publisher: Pick<BusPublisher, 'publish'>;
      subjects: Subjects;
      recalled: Counter;
      logger: JsonLogger;
    },
  ) {}

  onTradingState(entry: TradingStateEntry): void {
    const ids = ordersToRecall(entry, this.deps.open()).filter((id) => !this.recalled.has(id));
    if (ids.length === 0) return;
    for (const id of ids) this.recalled.set(id, true);
    const reason = `HALTED ${entry.scope}${entry.id !== undefined ? ` ${entry.id}` : ''}`.slice(0, 200);
    for (let at = 0; at < ids.length; at += RECALL_MAX_IDS) {
      const recall: OrderRecall = { v: 1, clientRequestIds: ids.slice(at, at + RECALL_MAX_IDS), reason };
      this.deps.publisher.publish(this.deps.subjects.orderRecall, recall, 'order.recall');
    }
    this.deps.recalled.inc(ids.length);
    this.deps.logger.warn('halt: orders accepted before it recalled (not sent if their commands have not left)', {
      orders: ids.length,
      reason,
    });
  }
}

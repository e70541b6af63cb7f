/**
 * What the venue says about an order after its final outcome — its trade undone (`undone`), or a FAILED it
 * contradicted with an execution (`correction`) — is written on the order's record once (compare-and-set) and told
 * in one more order event, stored once also beyond the event stream's duplicate window. A redelivery after a crash
 * between the two completes the event; a record marked before is never marked again.
 */
import type { BusPublisher, BusStreams } from '#bus';
import { doublingDelay, type Clock } from '#actors';
import type { ExecutionSubjects, OrderEvent } from '#contracts';
import type { OrderJournal } from './order-journal.js';
import { viewOf, type OrderRecord } from './order-record.js';

export type AfterFinalField = 'undone' | 'correction';

export interface AfterFinalDeps {
  journal: OrderJournal;
  publisher: BusPublisher;
  streams: Pick<BusStreams, 'lastMessage'>;
  eventStream: string;
  execSubjects: ExecutionSubjects;
  clock: Clock;
}

/**
 * Marks `field` on the order's record with `value(now)` and stores its event; `value` undefined only makes sure the
 * event of a mark made before is stored. 'already' when the record was marked before (or there is no record).
 */
export async function markAfterFinal<F extends AfterFinalField>(
  deps: AfterFinalDeps,
  orderId: string,
  field: F,
  value: ((now: number) => NonNullable<OrderRecord[F]>) | undefined,
): Promise<'marked' | 'already'> {
  const current = await deps.journal.read(orderId);
  if (current === undefined) return 'already';
  let record = current.record;
  const already = record[field] !== undefined;
  const topic = deps.execSubjects.orderEventTopic(record.strategyId, orderId);
  if (already || value === undefined) {
    const stored = await deps.streams.lastMessage<OrderEvent>(deps.eventStream, topic.subject);
    if (stored?.value.order[field] !== undefined || record[field] === undefined) return 'already';
  } else {
    const now = deps.clock.now();
    record = { ...record, [field]: value(now), eventSeq: record.eventSeq + 1, updatedAt: now };
    // a conflict throws: what caused the mark is delivered again and read afresh
    await deps.journal.update(record, current.revision);
  }
  const event: OrderEvent = { v: 1, seq: record.eventSeq, at: record.updatedAt, order: viewOf(record) };
  await deps.publisher.publishDurableTo(topic, event, { msgId: `${orderId}:${field}`, attempts: 3 });
  return already ? 'already' : 'marked';
}

/** A message body as JSON, or undefined when it is not JSON (the caller says what it makes of that). */
export function jsonOrUndefined(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * How long a message about an order not settled and closed yet waits before it comes again (nak): 1 s, doubling
 * with each delivery, at most a minute.
 */
export function untilSettledDelayMs(deliveryCount: number): number {
  return doublingDelay(deliveryCount - 1, { initialMs: 1_000, maxMs: 60_000 });
}

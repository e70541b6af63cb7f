/**
 * Per-order ownership across instances. The instance that accepts an order owns it (`owner` in its
 * record). Every `sweepMs` each instance looks at the open orders: its own ones without an actor are
 * resumed (an actor dropped after a failed write, or an earlier life with the same INSTANCE_ID); an order
 * whose owner is dead is taken over by compare-and-set on the record's revision — exactly one instance wins,
 * and the dead owner, should it come back, is fenced by the same revision check on its next write.
 */
import type { JsonLogger } from '#observability';
import type { OrderDesk } from '../orders/order-desk.js';
import { JournalConflictError, type OrderJournal } from '../orders/order-journal.js';
import { isFinalState, type OrderRecord } from '../orders/order-record.js';
import type { InstanceRegistry } from './instance-registry.js';

export class OrderOwnership {
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly journal: OrderJournal,
    private readonly registry: InstanceRegistry,
    private readonly desk: OrderDesk,
    private readonly logger: JsonLogger,
    /** An open mark without its record this long after acceptance is a placing that ended half-way (never sent). */
    private readonly leftover: { now: () => number; afterMs: number },
  ) {}

  /** One pass over the open orders (never two at once). `startup`: orders resumed now hold new orders back until checked. */
  sweep(startup: boolean): Promise<void> {
    this.sweeping ??= this.pass(startup).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Every open order in the journal (for risk's restore at start-up). */
  async openRecords(): Promise<OrderRecord[]> {
    const records: OrderRecord[] = [];
    for (const orderId of await this.journal.openOrderIds()) {
      const stored = await this.journal.read(orderId);
      if (stored !== undefined) records.push(stored.record);
    }
    return records;
  }

  private async pass(startup: boolean): Promise<void> {
    const me = this.registry.instanceId;
    const alive = new Map<string, boolean>();
    for (const orderId of await this.journal.openOrderIds()) {
      if (this.desk.handles(orderId)) continue;
      const stored = await this.journal.read(orderId);
      if (this.desk.handles(orderId)) continue;
      if (stored === undefined) {
        await this.dropLeftover(orderId);
        continue;
      }
      const { record, revision } = stored;
      if (record.owner === me) {
        if (await this.closedMeanwhile(record)) continue;
        this.desk.resume(record, revision, startup ? 'startup' : 'retry');
        continue;
      }
      let ownerAlive = alive.get(record.owner);
      if (ownerAlive === undefined) {
        ownerAlive = await this.registry.isAlive(record.owner);
        alive.set(record.owner, ownerAlive);
      }
      if (ownerAlive || (await this.closedMeanwhile(record))) continue;
      const taken: OrderRecord = { ...record, owner: me };
      try {
        const next = await this.journal.update(taken, revision);
        this.logger.info('order taken over from a dead instance; reconciled, never re-sent', {
          orderId,
          from: record.owner,
          state: record.state,
        });
        this.desk.resume(taken, next, startup ? 'startup' : 'takeover');
      } catch (error) {
        if (!(error instanceof JournalConflictError)) throw error;
        // another instance took it first, or its owner wrote: not ours
      }
    }
  }

  /**
   * Closed since the list was read — a placing that gave its intent back, or an order done: nothing to resume. Read
   * only before a resume or a takeover, not for every open order of a live instance.
   */
  private async closedMeanwhile(record: OrderRecord): Promise<boolean> {
    return !isFinalState(record.state) && !(await this.journal.isOpen(record.orderId));
  }

  /** An open mark whose record was never written (a crash between the two writes): gone once it cannot be sent. */
  private async dropLeftover(orderId: string): Promise<void> {
    const openedAt = await this.journal.openedAt(orderId);
    if (openedAt === undefined || this.leftover.now() - openedAt <= this.leftover.afterMs) return;
    await this.journal.close(orderId);
    this.logger.warn('open mark of an order never recorded removed (its placing ended half-way; never sent)', {
      orderId,
    });
  }
}

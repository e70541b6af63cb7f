/**
 * Withdrawal change events on their way to JetStream, in order per request. A change that could not be
 * published is kept and tried again — before any later change of the same request, and at every poll — so a
 * change is never lost to a JetStream outage, least of all a final one, whose request leaves the open set at
 * once (the restart's republish covers only open requests). Each change keeps its msgId: a retry whose first
 * attempt was stored after all is dropped by the stream's duplicate window.
 */
import type { WithdrawalStateChanged } from '#contracts';

export interface OutboxChange {
  readonly subject: string;
  readonly event: WithdrawalStateChanged;
  readonly msgId: string;
}

export class ChangeOutbox {
  private readonly waiting = new Map<string, OutboxChange[]>();

  constructor(
    private readonly publish: (change: OutboxChange) => Promise<void>,
    private readonly onFailure: (requestId: string, change: OutboxChange, error: unknown) => void,
  ) {}

  /** Changes not published yet, over every request. */
  get size(): number {
    let size = 0;
    for (const queue of this.waiting.values()) size += queue.length;
    return size;
  }

  /** Requests with changes not published yet. */
  requestIds(): string[] {
    return [...this.waiting.keys()];
  }

  /** Queues `change` behind the request's unpublished ones and publishes in order; false when some are left. */
  send(requestId: string, change: OutboxChange): Promise<boolean> {
    const queue = this.waiting.get(requestId);
    if (queue === undefined) this.waiting.set(requestId, [change]);
    else queue.push(change);
    return this.flush(requestId);
  }

  /** Publishes the request's waiting changes in order, stopping at the first failure; false when some are left. */
  async flush(requestId: string): Promise<boolean> {
    const queue = this.waiting.get(requestId);
    while (queue !== undefined && queue.length > 0) {
      const change = queue[0] as OutboxChange;
      try {
        await this.publish(change);
      } catch (error) {
        this.onFailure(requestId, change, error);
        return false;
      }
      queue.shift();
    }
    this.waiting.delete(requestId);
    return true;
  }
}

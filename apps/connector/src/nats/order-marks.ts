import { randomUUID } from 'node:crypto';
import { isFinalStatus, type OrderOutcomeStatus } from '#contracts';
import type { KvBucket } from '#bus';

/**
 * `SENDING` — marked, the frame may be leaving; `SENT` — handed to the venue session; then the last
 * outcome status published. A mark is written *before* the frame leaves, so a clientRequestId is sent at
 * most once, ever, even across restarts and redeliveries.
 */
export type OrderMarkStatus = 'SENDING' | 'SENT' | OrderOutcomeStatus;

export interface OrderMark {
  clientRequestId: string;
  status: OrderMarkStatus;
  quoteId?: string;
  side?: 'BUY' | 'SELL';
  markedAt: number;
  updatedAt: number;
  /** The `mark` call that created it (a random id); absent on marks created from an outcome. */
  attempt?: string;
}

export function isFinal(status: OrderMarkStatus): boolean {
  return status !== 'SENDING' && status !== 'SENT' && isFinalStatus(status);
}

/**
 * The order marks of one account, in a JetStream KV bucket (file storage): `mark.<id>` holds the mark,
 * and `open.<id>` exists while the order has no final outcome, so start-up reads only the open ones
 * (the bucket keeps every order for the retention period). An `open.` key left by a crash between the
 * two writes is harmless: its mark says final, and it is removed when found.
 */
export class OrderMarks {
  private readonly chains = new Map<string, Promise<unknown>>();
  /**
   * The attempts of `mark` that failed in this process, by id (the create's answer lost, or the open entry
   * not written): the mark may exist, but nothing was sent — the caller never got 'created'. Bounded; an id
   * that falls out is reconciled like any mark seen before.
   */
  private readonly unanswered = new Map<string, string[]>();

  constructor(
    private readonly bucket: KvBucket,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * 'created': this call owns the send. 'exists': the id was seen before — never send it again. A mark
   * created by one of this process's *failed* calls (a timeout on a reply the server had already acted
   * on) was never sent: the next call for it, e.g. the command's redelivery, gets 'created'.
   */
  mark(clientRequestId: string, fields: Pick<OrderMark, 'status' | 'quoteId' | 'side'>): Promise<'created' | 'exists'> {
    const now = this.now();
    const attempt = randomUUID();
    return this.serial(clientRequestId, async () => {
      try {
        // the open entry first: a process that dies once the mark is stored (its answer in flight, say) leaves
        // it listed, so every later start reconciles it (outside tester: written after, it was lost with the
        // process, and the order, marked and never sent, was never looked at again); a stray one is cleaned
        await this.bucket.put(openKey(clientRequestId), { markedAt: now });
        let created = await this.bucket.createIfAbsent(markKey(clientRequestId), {
          clientRequestId,
          ...fields,
          markedAt: now,
          updatedAt: now,
          attempt,
        });
        if (created === 'exists' && this.unanswered.has(clientRequestId)) created = await this.reclaim(clientRequestId);
        this.unanswered.delete(clientRequestId);
        return created;
      } catch (error) {
        this.remember(clientRequestId, attempt);
        throw error;
      }
    });
  }

  /** A mark still `SENDING`, written by one of this process's failed calls: nobody sent it → ours to send. */
  private async reclaim(clientRequestId: string): Promise<'created' | 'exists'> {
    const mark = await this.get(clientRequestId);
    return mark !== undefined && this.leftUnsent(mark) ? 'created' : 'exists';
  }

  /**
   * True for a mark written by one of this process's failed `mark` calls and still `SENDING`: it exists, but
   * its frame never left, so it is not "seen before" — the next `mark` call for it gets 'created'.
   */
  leftUnsent(mark: OrderMark): boolean {
    const failed = this.unanswered.get(mark.clientRequestId) ?? [];
    return mark.status === 'SENDING' && mark.attempt !== undefined && failed.includes(mark.attempt);
  }

  private remember(clientRequestId: string, attempt: string): void {
    const failed = this.unanswered.get(clientRequestId);
    if (failed !== undefined) {
      if (failed.length < MAX_ATTEMPTS_KEPT) failed.push(attempt);
      return;
    }
    const oldest = this.unanswered.size >= MAX_UNANSWERED ? this.unanswered.keys().next().value : undefined;
    if (oldest !== undefined) this.unanswered.delete(oldest);
    this.unanswered.set(clientRequestId, [attempt]);
  }

  async get(clientRequestId: string): Promise<OrderMark | undefined> {
    return (await this.bucket.get<OrderMark>(markKey(clientRequestId)))?.value;
  }

  /**
   * Moves a mark forward: a final status is never replaced, and `SENT` only replaces `SENDING` (an
   * outcome may arrive before `submit` returns). Creates the mark for an outcome of an order this
   * connector did not send (e.g. placed before marks existed).
   */
  record(clientRequestId: string, status: OrderMarkStatus): Promise<void> {
    return this.serial(clientRequestId, async () => {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const entry = await this.bucket.get<OrderMark>(markKey(clientRequestId));
        const now = this.now();
        if (entry === undefined) {
          if (!isFinal(status)) await this.bucket.put(openKey(clientRequestId), { markedAt: now }); // first, as above
          const created = await this.bucket.createIfAbsent(markKey(clientRequestId), {
            clientRequestId,
            status,
            markedAt: now,
            updatedAt: now,
          });
          if (created === 'created') return;
          continue;
        }
        const current = entry.value.status;
        if (isFinal(current) || (status === 'SENT' && current !== 'SENDING')) return;
        try {
          await this.bucket.update(
            markKey(clientRequestId),
            { ...entry.value, status, updatedAt: now },
            entry.revision,
          );
        } catch {
          continue; // another writer moved it in between: read again
        }
        if (isFinal(status)) await this.bucket.remove(openKey(clientRequestId));
        return;
      }
      throw new Error(`could not record ${status} on an order mark after 5 attempts`);
    });
  }

  /**
   * The frame certainly never left and the command goes back to the stream (shutdown): the mark is
   * removed, so the instance that takes the command next sends it. Only a `SENDING` mark is removed.
   */
  release(clientRequestId: string): Promise<void> {
    return this.serial(clientRequestId, async () => {
      const entry = await this.bucket.get<OrderMark>(markKey(clientRequestId));
      if (entry?.value.status !== 'SENDING') return;
      await this.bucket.remove(markKey(clientRequestId));
      await this.bucket.remove(openKey(clientRequestId));
    });
  }

  /** Marks without a final outcome: sent (or maybe sent) orders whose outcome must be resolved. */
  async unresolved(): Promise<OrderMark[]> {
    const open: OrderMark[] = [];
    for (const key of await this.bucket.keys(`${OPEN}.>`)) {
      const id = key.slice(OPEN.length + 1);
      const entry = await this.bucket.get<OrderMark>(`${MARK}.${id}`);
      if (entry !== undefined && !isFinal(entry.value.status)) open.push(entry.value);
      else await this.bucket.remove(key);
    }
    return open;
  }

  /** One operation at a time per clientRequestId inside this process. */
  private serial<T>(clientRequestId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(clientRequestId) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(clientRequestId, settled);
    void settled.then(() => {
      if (this.chains.get(clientRequestId) === settled) this.chains.delete(clientRequestId);
    });
    return next;
  }
}

const MARK = 'mark';
const MAX_UNANSWERED = 10_000;
/** Failed calls kept per id: a redelivered command's retries (the first ones are the likely creators). */
const MAX_ATTEMPTS_KEPT = 8;
const OPEN = 'open';

/** KV keys allow only `[-/_=.A-Za-z0-9]`; a clientRequestId may hold other characters. */
function encoded(clientRequestId: string): string {
  return Buffer.from(clientRequestId, 'utf8').toString('base64url');
}
const markKey = (clientRequestId: string): string => `${MARK}.${encoded(clientRequestId)}`;
const openKey = (clientRequestId: string): string => `${OPEN}.${encoded(clientRequestId)}`;

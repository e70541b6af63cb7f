/**
 * The price subjects this account's connector is publishing a stream's life on, in NATS KV
 * (`GW_PRICE_SUBJECTS_{account}`): a subject is recorded before its stream's first `live` price goes out (that
 * price waits for the write, first-price-hold.ts) and removed once the stream ends with `stopped`. A clean stop
 * ends every one (`PricePublication.stopAll`); a killed process (SIGKILL, OOM) ends none, and its last `live`
 * price stays the subject's last value — a late joiner would read it as live and order on it (outside tester t2:
 * 17–29 s old, executed). At start the next life reads the subjects left here and publishes `stopped` on those
 * whose last value is still live or stale (`retireEarlierLife`), before it serves a stream. Kept here rather than
 * read from the price stream: price subjects are not account-scoped, so with several connectors on one NATS that
 * stream holds other accounts' prices, which a running connector keeps.
 *
 * A record answers within its deadline, never throws: a bucket the server lost is declared again by the bus and
 * every subject held written again, which settles a record still waiting. Removals never wait; a lost one is logged.
 */
import { isNoStreamAnswer, type KvBucket } from '#bus';
import type { JsonLogger } from '#observability';
import type { SubjectRecordResult } from './first-price-hold.js';

/** How long a new stream's first price waits for its subject's record before going out without it. */
export const DEFAULT_RECORD_DEADLINE_MS = 2_000;

export interface SubjectRecord {
  readonly result: SubjectRecordResult;
  /** Why it failed (the last error of the write). */
  readonly error?: string;
}

export class PublishedPriceSubjects {
  /** What the bucket should hold now: the subjects this life publishes on. */
  private readonly held = new Set<string>();
  /** Records not settled yet, by subject: a write that succeeds settles it. */
  private readonly waiting = new Map<string, (record: SubjectRecord) => void>();

  constructor(
    private readonly bucket: KvBucket,
    private readonly logger: JsonLogger,
    private readonly deadlineMs = DEFAULT_RECORD_DEADLINE_MS,
  ) {
    bucket.onDeclaredAfresh(() => {
      for (const subject of this.held) {
        this.write(subject).catch((error: unknown) =>
          this.logger.warn('a price subject could not be written again in NATS KV', {
            consequence:
              'after a crash its last price is left to age out (PRICE_MAX_AGE_MS) instead of being marked stopped',
            error: messageOf(error),
          }),
        );
      }
    });
  }

  /** The subjects an earlier life left (it never said `stopped` on them), read in one pass. */
  async earlier(): Promise<string[]> {
    const values = await this.bucket.values<{ subject?: unknown }>();
    const subjects: string[] = [];
    for (const value of values.values()) if (typeof value?.subject === 'string') subjects.push(value.subject);
    return subjects;
  }

  /** An earlier life's subject, dealt with: forgotten (awaited, so a start leaves the bucket as this life's). */
  async forgetEarlier(subject: string): Promise<void> {
    if (this.held.has(subject)) return;
    await this.bucket.remove(keyOf(subject));
  }

  /**
   * A stream's life starts publishing on `subject`: settles once the record is durable (the server stored it),
   * or failed / timed out at the deadline. A "no stream" answer (the server lost the bucket) waits for the bus
   * to declare it again, whose write of every held subject settles it.
   */
  record(subject: string): Promise<SubjectRecord> {
    this.held.add(subject);
    return new Promise((resolve) => {
      let error: string | undefined;
      const settle = (record: SubjectRecord): void => {
        clearTimeout(deadline);
        if (this.waiting.get(subject) === settle) this.waiting.delete(subject);
        resolve(record);
      };
      const deadline = setTimeout(
        () => settle(error === undefined ? { result: 'timed_out' } : { result: 'failed', error }),
        this.deadlineMs,
      );
      deadline.unref();
      this.waiting.set(subject, settle);
      this.write(subject).catch((failure: unknown) => {
        error = messageOf(failure);
        if (!isNoStreamAnswer(failure)) settle({ result: 'failed', error });
      });
    });
  }

  /** The stream on `subject` ended (`stopped` published). */
  ended(subject: string): void {
    this.held.delete(subject);
    this.bucket.remove(keyOf(subject)).catch((error: unknown) =>
      this.logger.warn('a price subject could not be forgotten in NATS KV', {
        consequence: 'the next start reads its last value again (nothing is published if it is stopped)',
        error: messageOf(error),
      }),
    );
  }

  private async write(subject: string): Promise<void> {
    await this.bucket.put(keyOf(subject), { subject });
    this.waiting.get(subject)?.({ result: 'recorded' });
  }
}

/** A KV key for a subject: its tokens may hold characters a key may not (`:`, `+`…); base64url never does. */
function keyOf(subject: string): string {
  return Buffer.from(subject).toString('base64url');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

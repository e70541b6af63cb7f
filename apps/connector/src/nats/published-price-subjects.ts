/**
 * The price subjects this account's connector is publishing a stream's life on, in NATS KV
 * (`GW_PRICE_SUBJECTS_{account}`): a subject is written when its stream first publishes and removed once it ends
 * with `stopped`. A clean stop ends every one (`PricePublication.stopAll`); a killed process (SIGKILL, OOM) ends
 * none, and its last `live` price stays the subject's last value — a late joiner would read it as live and order
 * on it (outside tester t2: 17–29 s old, executed). At start the next life reads the subjects left here and
 * publishes `stopped` on those whose last value is still live or stale (`retireEarlierLife`), before it serves a
 * stream. Kept here rather than read from the price stream: price subjects are not account-scoped, so with
 * several connectors on one NATS that stream holds other accounts' prices, which a running connector keeps.
 *
 * Writes never wait and never fail a price: a lost one leaves that subject to age out as before, logged.
 */
import type { KvBucket } from '#bus';
import type { JsonLogger } from '#observability';

export class PublishedPriceSubjects {
  /** What the bucket should hold now: the subjects this life publishes on. */
  private readonly held = new Set<string>();

  constructor(
    private readonly bucket: KvBucket,
    private readonly logger: JsonLogger,
  ) {
    bucket.onDeclaredAfresh(() => {
      for (const subject of this.held) this.put(subject);
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

  /** A stream's life starts publishing on `subject`. */
  publishing(subject: string): void {
    this.held.add(subject);
    this.put(subject);
  }

  /** The stream on `subject` ended (`stopped` published). */
  ended(subject: string): void {
    this.held.delete(subject);
    this.bucket.remove(keyOf(subject)).catch((error: unknown) => this.failed('forgotten', error));
  }

  private put(subject: string): void {
    this.bucket.put(keyOf(subject), { subject }).catch((error: unknown) => this.failed('remembered', error));
  }

  private failed(what: 'remembered' | 'forgotten', error: unknown): void {
    this.logger.warn(`a price subject could not be ${what} in NATS KV`, {
      consequence:
        what === 'remembered'
          ? 'after a crash its last price is left to age out (PRICE_MAX_AGE_MS) instead of being marked stopped'
          : 'the next start reads its last value again (nothing is published if it is stopped)',
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** A KV key for a subject: its tokens may hold characters a key may not (`:`, `+`…); base64url never does. */
function keyOf(subject: string): string {
  return Buffer.from(subject).toString('base64url');
}

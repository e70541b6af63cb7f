/**
 * One venue subscription this connector released, until the venue confirms it is gone — pure rules, no I/O, no
 * clock reads (time comes in `now`); price-stream-registry.ts keeps one per released subscription id and sends
 * the unsubscribes these rules ask for (through the outbound limiter).
 *
 * Why: the venue drops a message over the account's budget and says so only in an `error` frame naming no
 * message (W9, W14) — an unsubscribe lost that way left the subscription streaming at the venue for up to an
 * hour (outside tester: 84 orphans, ≈ 280 frames/s thrown away as `unknown_tag`). So an unsubscribe is done only
 * when the venue answers it (an `unsubscribe` reply or a `streamStop` for its tag, whichever the dialect sends,
 * W10); an unanswered one is sent again after `confirmTimeoutMs`, doubling, `maxSends` frames at most (the venue
 * ignores an unknown id without a reply, §2.1 rule 3, so a subscription it had already dropped — a reconnect in
 * the `dropped` dialect — never confirms: the bound keeps that to a few frames). A release given up on is kept
 * for `retentionMs`: a price under its tag then proves it still streams, and is answered by one more unsubscribe,
 * at most once per `confirmTimeoutMs` (never once per frame).
 */

export interface ReleasePolicy {
  /** Time the venue gets to answer an unsubscribe before it is sent again (doubles with every frame). */
  readonly confirmTimeoutMs: number;
  /** Unsubscribe frames sent on a timer at most; a price under the tag sends one more, however many went before. */
  readonly maxSends: number;
  /** How long a release nobody confirmed is remembered after its last frame or price (then forgotten). */
  readonly retentionMs: number;
}

export interface VenueRelease {
  readonly subscriptionId: string;
  /** The tag the venue streams the subscription under (its prices and stops carry it), when known. */
  readonly tag: string | undefined;
  /** Frames that left. */
  readonly sends: number;
  /** An unsubscribe waits for the message budget: nothing else is sent for it meanwhile. */
  readonly queued: boolean;
  /** The last frame could not leave (no connection): sent again when one opens. */
  readonly awaitingConnection: boolean;
  /** When the last frame left. */
  readonly sentAt: number | undefined;
  /** When an unanswered frame is sent again; undefined once `maxSends` left (only a price revives it). */
  readonly retryAt: number | undefined;
  /** The newest price under the tag that came later than a confirm timeout after a frame left: it still streams. */
  readonly streamedAt: number | undefined;
  /** Last frame, price or release: retention counts from here. */
  readonly touchedAt: number;
}

/** What the registry does after a rule: send one unsubscribe (why), forget the release, or nothing. */
export type ReleaseAction = 'none' | 'sendUnanswered' | 'sendStreaming' | 'forget';

export interface ReleaseStep {
  readonly release: VenueRelease;
  readonly action: ReleaseAction;
}

/** A subscription released now: its first unsubscribe is to be sent. */
export function newRelease(subscriptionId: string, tag: string | undefined, now: number): ReleaseStep {
  return {
    release: {
      subscriptionId,
      tag,
      sends: 0,
      queued: true,
      awaitingConnection: false,
      sentAt: undefined,
      retryAt: undefined,
      streamedAt: undefined,
      touchedAt: now,
    },
    action: 'sendUnanswered',
  };
}

/** The limiter let the frame go: `sent` false when the socket was not open. */
export function releaseFrameLeft(r: VenueRelease, sent: boolean, now: number, policy: ReleasePolicy): VenueRelease {
  if (!sent) return { ...r, queued: false, awaitingConnection: true, touchedAt: now };
  const sends = r.sends + 1;
  return {
    ...r,
    sends,
    queued: false,
    awaitingConnection: false,
    sentAt: now,
    retryAt: sends < policy.maxSends ? now + policy.confirmTimeoutMs * 2 ** (sends - 1) : undefined,
    touchedAt: now,
  };
}

/** A connection opened: a frame that could not leave goes now. */
export function releaseOnConnectionUp(r: VenueRelease): ReleaseStep {
  if (!r.awaitingConnection || r.queued) return { release: r, action: 'none' };
  return { release: { ...r, queued: true, awaitingConnection: false }, action: 'sendUnanswered' };
}

/** The registry's periodic look: an unanswered frame is sent again when due; a stale release is forgotten. */
export function releaseOnSweep(r: VenueRelease, now: number, policy: ReleasePolicy): ReleaseStep {
  if (r.queued || r.awaitingConnection) return { release: r, action: 'none' };
  if (r.retryAt !== undefined) {
    return now >= r.retryAt
      ? { release: { ...r, queued: true }, action: 'sendUnanswered' }
      : { release: r, action: 'none' };
  }
  return now - r.touchedAt >= policy.retentionMs ? { release: r, action: 'forget' } : { release: r, action: 'none' };
}

/**
 * A price under the released subscription's tag. Prices already on the way when the venue read the unsubscribe
 * are expected; one more than a confirm timeout after the last frame means the venue still streams it: one more
 * unsubscribe (counted as an orphan ended), and no other for a confirm timeout, however many prices come.
 */
export function releaseOnPrice(r: VenueRelease, now: number, policy: ReleasePolicy): ReleaseStep {
  if (r.sentAt === undefined || now - r.sentAt < policy.confirmTimeoutMs) return { release: r, action: 'none' };
  const streaming: VenueRelease = { ...r, streamedAt: now, touchedAt: now };
  if (r.queued || r.awaitingConnection) return { release: streaming, action: 'none' };
  return { release: { ...streaming, queued: true }, action: 'sendStreaming' };
}

/** Still streaming at the venue: a price came under its tag within the last `withinMs`, long after we asked. */
export function isOrphan(r: VenueRelease, now: number, withinMs: number): boolean {
  return r.streamedAt !== undefined && now - r.streamedAt <= withinMs;
}

import type { VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { UnsubscribeResendReason, VenueMetrics } from '../venue-metrics.js';
import {
  isOrphan,
  newRelease,
  releaseFrameLeft,
  releaseOnConnectionUp,
  releaseOnPrice,
  releaseOnSweep,
  type ReleasePolicy,
  type ReleaseStep,
  type VenueRelease,
} from './venue-release.js';

/** At most this many releases are remembered; past it the oldest one given up on is forgotten first. */
const MAX_RELEASES = 10_000;

/**
 * The subscriptions this connector released and the venue has not yet confirmed gone (rules: venue-release.ts),
 * by subscription id and by tag. The shell: it sends the unsubscribes through the outbound limiter, takes the
 * venue's answers, and tells `gone` once a release is over (confirmed, or forgotten after its retention).
 */
export class VenueReleases {
  private readonly byId = new Map<string, VenueRelease>();
  private readonly idOfTag = new Map<string, string>();

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly metrics: VenueMetrics,
    private readonly clock: VenueClock,
    private readonly policy: ReleasePolicy,
    /** The release is over: confirmed by the venue, or forgotten unconfirmed after its retention. */
    private readonly gone: (subscriptionId: string, confirmed: boolean) => void,
  ) {
    metrics.watchUnconfirmedReleases(() => this.counts());
  }

  /** `subscriptionId` (streamed under `tag`, when known) is no longer wanted: unsubscribed until the venue confirms. */
  release(subscriptionId: string, tag: string | undefined): void {
    const known = this.byId.get(subscriptionId);
    if (known !== undefined) {
      // released again (an unsubscribe that could not leave, sent on the next connection): a price still revives it
      if (known.tag === undefined && tag !== undefined) this.store({ ...known, tag });
      return;
    }
    if (this.byId.size >= MAX_RELEASES) this.dropOldest();
    this.apply(newRelease(subscriptionId, tag, this.clock.now()));
  }

  /** True when `tag` is a released subscription's, still unconfirmed. */
  hasTag(tag: string): boolean {
    return this.idOfTag.has(tag);
  }

  /** A price came under a released subscription's tag; true when the tag is one. */
  onPrice(tag: string): boolean {
    const id = this.idOfTag.get(tag);
    const release = id === undefined ? undefined : this.byId.get(id);
    if (release === undefined) return false;
    this.apply(releaseOnPrice(release, this.clock.now(), this.policy));
    return true;
  }

  /** The venue answered an unsubscribe (a reply naming the id, or only the tag); the tag of the release ended. */
  confirm(subscriptionId: string | undefined, tag: string | undefined): string | undefined {
    const id = subscriptionId !== undefined && this.byId.has(subscriptionId) ? subscriptionId : this.idOf(tag);
    const release = id === undefined ? undefined : this.byId.get(id);
    if (release === undefined) return undefined;
    this.remove(release);
    this.gone(release.subscriptionId, true);
    return release.tag ?? tag;
  }

  connectionUp(): void {
    for (const release of [...this.byId.values()]) this.apply(releaseOnConnectionUp(release));
  }

  sweep(): void {
    const now = this.clock.now();
    for (const release of [...this.byId.values()]) this.apply(releaseOnSweep(release, now, this.policy));
  }

  counts(): { unconfirmed: number; orphans: number } {
    const now = this.clock.now();
    let orphans = 0;
    for (const release of this.byId.values()) if (isOrphan(release, now, 3 * this.policy.confirmTimeoutMs)) orphans++;
    return { unconfirmed: this.byId.size, orphans };
  }

  /** Shutdown: nothing more is sent (a venue holding subscriptions across sessions is K2's leftover case). */
  clear(): void {
    this.byId.clear();
    this.idOfTag.clear();
  }

  private idOf(tag: string | undefined): string | undefined {
    return tag === undefined ? undefined : this.idOfTag.get(tag);
  }

  private apply(step: ReleaseStep): void {
    const { release, action } = step;
    switch (action) {
      case 'none':
        if (this.byId.get(release.subscriptionId) !== release) this.store(release);
        return;
      case 'forget':
        this.remove(release);
        this.gone(release.subscriptionId, false);
        return;
      case 'sendUnanswered':
      case 'sendStreaming':
        this.store(release);
        if (release.sends > 0) this.metrics.unsubscribesResent.inc({ reason: REASON[action] });
        this.send(release.subscriptionId);
        return;
    }
  }

  private send(subscriptionId: string): void {
    const wanted = () => this.byId.get(subscriptionId)?.queued === true;
    void this.limiter.acquire('unsubscribe', wanted).then(() => {
      const release = this.byId.get(subscriptionId);
      if (release === undefined || !release.queued) return; // confirmed meanwhile: no frame
      const sent = this.channel.send({ messageType: 'unsubscribe', subscriptionId });
      this.store(releaseFrameLeft(release, sent, this.clock.now(), this.policy));
    });
  }

  private store(release: VenueRelease): void {
    this.byId.set(release.subscriptionId, release);
    if (release.tag !== undefined) this.idOfTag.set(release.tag, release.subscriptionId);
  }

  private remove(release: VenueRelease): void {
    this.byId.delete(release.subscriptionId);
    if (release.tag !== undefined && this.idOfTag.get(release.tag) === release.subscriptionId) {
      this.idOfTag.delete(release.tag);
    }
  }

  private dropOldest(): void {
    let oldest: VenueRelease | undefined;
    for (const release of this.byId.values()) {
      if (release.queued || release.retryAt !== undefined) continue;
      if (oldest === undefined || release.touchedAt < oldest.touchedAt) oldest = release;
    }
    oldest ??= this.byId.values().next().value;
    if (oldest === undefined) return;
    this.remove(oldest);
    this.gone(oldest.subscriptionId, false);
  }
}

const REASON: Record<'sendUnanswered' | 'sendStreaming', UnsubscribeResendReason> = {
  sendUnanswered: 'unanswered',
  sendStreaming: 'streaming',
};

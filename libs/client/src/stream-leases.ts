/**
 * This client's leases on price streams. The connector keeps one lease per requester and stream, so every
 * watch of one stream in this client shares it: a release by one drops it for all. Watches therefore hold a
 * stream here, counted per price subject, and the lease is released when the last holder leaves — exactly
 * once, and never under a grant:
 *
 *  - while any grant (or renewal) is on its way, a release waits: that grant may be of the same stream (the
 *    subject is known only from the answer; `0.50` and `0.5` are one stream), and the connector, having taken
 *    it already, would drop the lease it just gave. The waiting release is sent once no grant is on its way,
 *    if nobody holds the subject by then;
 *  - a grant asked while a release of its subject was on its way may have been handled by the connector before
 *    that release: once the release is answered, the grant is asked again;
 *  - the connector keeps the length of the latest renewal, so every renewal asks for the longest lease any
 *    holder of the subject wants: a short watch's renewal never cuts a long watch's lease, which renews rarely.
 */
import type { StreamGranted, StreamRequest } from '#contracts';

/** The connector's side of a lease: `stream.subscribe` and `stream.release`. */
export interface LeaseDesk {
  subscribe(request: StreamRequest): Promise<StreamGranted>;
  release(subject: string): Promise<void>;
}

export class StreamLeases {
  /** Per subject, the lease (s) each holder asked for: one entry per holder. */
  private readonly holders = new Map<string, number[]>();
  /** Per held subject, a request that names it (for a renewal no holder asked for). */
  private readonly requests = new Map<string, StreamRequest>();
  /** Releases sent and not answered yet, per subject. */
  private readonly releasing = new Map<string, Promise<void>>();
  /** When (on `clock`) a subject's last release was answered; kept while a grant asked before it may be out. */
  private readonly releaseAnsweredAt = new Map<string, number>();
  /** Subjects whose last holder left while a grant was on its way. */
  private readonly releaseWaiting = new Set<string>();
  private asksInFlight = 0;
  /** Orders asks and release answers (no wall time). */
  private clock = 0;

  constructor(private readonly desk: LeaseDesk) {}

  /** Asks for the stream and holds its subject; `letGo(subject)` once when done with it. */
  async hold(request: StreamRequest): Promise<StreamGranted> {
    let crossed: Promise<void> | undefined;
    const granted = await this.ask(request, (subject, askedAt) => {
      this.holders.set(subject, [...(this.holders.get(subject) ?? []), request.leaseSeconds ?? 0]);
      this.requests.set(subject, request);
      crossed = this.releaseCrossing(subject, askedAt);
    });
    if (crossed === undefined) return granted;
    try {
      await crossed;
      // the connector may have handled that release after this grant: ask again (held now, no release can follow)
      return await this.ask(this.longest(request, granted.subject));
    } catch (error) {
      this.letGo(granted.subject, request.leaseSeconds);
      throw error;
    }
  }

  /** Renews a held stream's lease, for the longest any holder of `subject` wants (a release of it waits). */
  renew(request: StreamRequest, subject: string): Promise<StreamGranted> {
    return this.ask(this.longest(request, subject));
  }

  /**
   * One holder (the one that asked for `leaseSeconds`) leaves; the last one releases the lease (at once, or when
   * the grants on their way are answered). If it leaves others that want a longer lease than its own grant or
   * renewal may have left at the connector, the lease is renewed for them at once.
   */
  letGo(subject: string, leaseSeconds: number | undefined): void {
    const held = [...(this.holders.get(subject) ?? [])];
    const mine = held.indexOf(leaseSeconds ?? 0);
    held.splice(mine >= 0 ? mine : 0, 1);
    const request = this.requests.get(subject);
    if (held.length > 0) {
      this.holders.set(subject, held);
      const longest = Math.max(...held);
      if (request !== undefined && longest > (leaseSeconds ?? 0)) {
        this.ask({ ...request, leaseSeconds: longest }).catch(() => undefined); // its holders' renewals say a loss
      }
      return;
    }
    this.holders.delete(subject);
    this.requests.delete(subject);
    if (this.asksInFlight > 0) this.releaseWaiting.add(subject);
    else this.release(subject);
  }

  private longest(request: StreamRequest, subject: string): StreamRequest {
    const wanted = Math.max(request.leaseSeconds ?? 0, ...(this.holders.get(subject) ?? []));
    return wanted > 0 ? { ...request, leaseSeconds: wanted } : request;
  }

  private async ask(
    request: StreamRequest,
    onGranted?: (subject: string, askedAt: number) => void,
  ): Promise<StreamGranted> {
    const askedAt = ++this.clock;
    this.asksInFlight += 1;
    try {
      const granted = await this.desk.subscribe(request);
      onGranted?.(granted.subject, askedAt); // held before any waiting release is looked at
      return granted;
    } finally {
      this.asksInFlight -= 1;
      if (this.asksInFlight === 0) this.noAskInFlight();
    }
  }

  private noAskInFlight(): void {
    this.releaseAnsweredAt.clear(); // no grant asked before those answers is still out
    const waiting = [...this.releaseWaiting];
    this.releaseWaiting.clear();
    for (const subject of waiting) if (!this.holders.has(subject)) this.release(subject);
  }

  private release(subject: string): void {
    const answered = this.desk
      .release(subject)
      .catch(() => undefined) // the lease runs out by itself anyway
      .finally(() => {
        if (this.releasing.get(subject) === answered) this.releasing.delete(subject);
        if (this.asksInFlight > 0) this.releaseAnsweredAt.set(subject, ++this.clock);
      });
    this.releasing.set(subject, answered);
  }

  /** A release of `subject` on its way when the grant was asked, or since: resolves when it is answered. */
  private releaseCrossing(subject: string, askedAt: number): Promise<void> | undefined {
    const onItsWay = this.releasing.get(subject);
    if (onItsWay !== undefined) return onItsWay;
    return (this.releaseAnsweredAt.get(subject) ?? 0) > askedAt ? Promise.resolve() : undefined;
  }
}

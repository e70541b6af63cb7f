import {
  errorReply,
  GatewayErrorCode,
  StreamRelease,
  StreamRequest,
  type StreamReleaseReply,
  type StreamReply,
  type Subjects,
} from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { ConnectorNatsMetrics } from './connector-metrics.js';
import type { PriceStreams, StreamKey } from './venue-ports.js';

interface Holding {
  key: StreamKey;
  leaseExpiresAt: number;
}

/**
 * `stream.subscribe` / `stream.release` request/reply. A subscribe is validated, turned into its price
 * subject (so a key that cannot form a subject is refused before it reaches the venue) and handed to the
 * registry; its answer (granted with the lease end, or the venue's refusal code) goes back to the
 * requester. A release names the subject it got; the key it was acquired with is remembered per
 * requester until its lease would have ended.
 */
export class StreamRequests {
  private readonly holdings = new Map<string, Map<string, Holding>>();
  private readonly subscriptions: BusSubscription[] = [];

  constructor(
    private readonly subjects: Subjects,
    private readonly registry: PriceStreams,
    private readonly responder: BusResponder,
    private readonly metrics: ConnectorNatsMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.subscriptions.length > 0) return;
    this.subscriptions.push(
      this.responder.respond({
        subject: this.subjects.streamSubscribe,
        kind: 'stream.subscribe',
        contract: StreamRequest,
        handle: (request) => this.subscribe(request),
      }),
      this.responder.respond({
        subject: this.subjects.streamRelease,
        kind: 'stream.release',
        contract: StreamRelease,
        handle: (request) => this.release(request),
      }),
    );
  }

  stop(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }

  async subscribe(request: StreamRequest): Promise<StreamReply> {
    let subject: string;
    try {
      subject = this.subjects.price(request);
    } catch (error) {
      this.metrics.streamRequests.inc({ result: 'invalid' });
      return errorReply(GatewayErrorCode.InvalidRequest, error instanceof Error ? error.message : String(error));
    }
    const result = await this.registry.acquire(request);
    if (!result.ok) {
      this.metrics.streamRequests.inc({ result: 'refused' });
      return errorReply(result.code, result.message);
    }
    this.metrics.streamRequests.inc({ result: 'granted' });
    this.remember(subject, request, result.leaseExpiresAt);
    return { ok: true, subject, leaseExpiresAt: result.leaseExpiresAt };
  }

  release(request: StreamRelease): StreamReleaseReply {
    this.prune();
    const holding = this.holdings.get(request.subject)?.get(request.requester);
    if (holding === undefined) {
      this.metrics.streamRequests.inc({ result: 'unknown' });
      return errorReply(
        'NOT_HELD',
        `${request.requester} holds no lease on ${request.subject} (expired or never granted)`,
      );
    }
    this.registry.release({ ...holding.key, requester: request.requester });
    this.forget(request.subject, request.requester);
    this.metrics.streamRequests.inc({ result: 'released' });
    return { ok: true };
  }

  private remember(subject: string, request: StreamRequest, leaseExpiresAt: number): void {
    this.prune();
    const key: StreamKey = {
      accountGroup: request.accountGroup,
      instrument: request.instrument,
      tenor: request.tenor,
      currency: request.currency,
      quantity: request.quantity,
    };
    let byRequester = this.holdings.get(subject);
    if (byRequester === undefined) {
      byRequester = new Map();
      this.holdings.set(subject, byRequester);
    }
    byRequester.set(request.requester, { key, leaseExpiresAt });
  }

  private forget(subject: string, requester: string): void {
    const byRequester = this.holdings.get(subject);
    byRequester?.delete(requester);
    if (byRequester?.size === 0) this.holdings.delete(subject);
  }

  /** Keeps the map bounded by live leases: an expired one has already lapsed in the registry. */
  private prune(): void {
    const now = this.now();
    for (const [subject, byRequester] of this.holdings) {
      for (const [requester, holding] of byRequester) {
        if (holding.leaseExpiresAt <= now) byRequester.delete(requester);
      }
      if (byRequester.size === 0) this.holdings.delete(subject);
    }
  }
}

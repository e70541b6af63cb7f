/**
 * Keeps the risk books of an account's execution instances together: each instance publishes what it admits
 * on `…exec.risk.admissions` and every event it learns of an order on `…exec.risk.book`, and counts what the
 * others publish (their admissions as the stream stored them, followed with an ordered consumer). So the
 * per-minute, rate, exposure and quote-size limits hold for the account, not per instance.
 *
 * Admissions are sequenced: each is published on the stream expecting the subject's last sequence to be the
 * last admission this instance has counted. When another instance admitted in between, the stream refuses it;
 * the admissions since are read from the stream, counted, and the order decided again (`AdmissionSequence`).
 * So two instances never both spend the same headroom. If the stream cannot take the admission (NATS or the
 * stream down, no answer in time), the order is admitted by this instance alone and published without
 * sequence, as before sequencing: counted by `execution_risk_admissions_unsequenced_total`.
 *
 * Events are best effort (core NATS): one lost while NATS is down is not replayed (a restart rebuilds the book
 * from the journal). The stream keeps both subjects a few minutes (`RiskStreamName.book`): a starting instance
 * reads the last minute's admissions back, every instance's and its own earlier life's, so a restart does not
 * empty the per-second and per-minute windows (the journal holds only the orders still open).
 */
import { isWrongLastSequence, type BusCore, type BusPublisher, type BusStreams, type BusSubscription } from '#bus';
import { riskSubjects, type Subjects } from '#contracts';
import type { Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { RiskOrder, RiskOrderEvent } from './risk-gate.js';
import type { AdmissionAnswer, RiskEngine, RiskPeers } from './risk-engine.js';
import type { PeerAdmission } from './risk-machine.js';
import type { RiskMetrics } from './risk-metrics.js';

/**
 * On `…exec.risk.admissions` (kind `admitted`) and `…exec.risk.book` (kind `event`): internal to the execution
 * app (its instances are one program), so in the seam's own types rather than in libs/contracts. Documented in
 * docs/execution-risk.md.
 */
export type RiskBookMessage =
  | { v: 1; instance: string; kind: 'admitted'; admittedAt: number; order: RiskOrder }
  | { v: 1; instance: string; kind: 'event'; event: RiskOrderEvent };

/** How long an admission's publication may wait for the stream's answer before the order is admitted alone. */
const ADMISSION_ACK_MS = 1_000;
/** After a publication the stream did not answer, admissions are published plainly this long (no wait each). */
const UNANSWERED_PAUSE_MS = 5_000;
/** How long the stream keeps the messages: the longest window (a minute) and a margin. */
const BOOK_KEPT_MS = 3 * 60_000;

export class RiskBookSync implements RiskPeers {
  private readonly admissions: string;
  private readonly events: string;
  private subscription: BusSubscription | undefined;
  private following: { stop(): void } | undefined;
  /** Until when admissions are published plainly: the stream did not answer the last one in sequence. */
  private unansweredUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: {
      core: BusCore;
      publisher: BusPublisher;
      streams: Pick<BusStreams, 'ensureStream' | 'readAll' | 'readAfter' | 'lastMessage' | 'follow'>;
      /** The stream holding both subjects (`RiskStreamName.book`). */
      stream: string;
      clock: Clock;
      engine: RiskEngine;
      instance: string;
      logger: JsonLogger;
      metrics?: RiskMetrics;
    },
    subjects: Subjects,
  ) {
    this.admissions = riskSubjects(subjects).admissions;
    this.events = riskSubjects(subjects).book;
  }

  /**
   * The stream of both subjects. Memory, one copy: minutes of window data and the admissions' sequence; lost with
   * its server, it is declared again (here after an unanswered publication, and by the bus's topology checks).
   */
  async declare(): Promise<void> {
    await this.deps.streams.ensureStream({
      name: this.deps.stream,
      subjects: [this.admissions, this.events],
      storage: 'memory',
      maxAgeMs: BOOK_KEPT_MS,
    });
  }

  /**
   * Events of the others, live (core NATS). Admissions are not taken from a core subscription: it would also
   * hear a publication the stream refused (an instance overtaken, whose order may then be refused) — they are
   * followed on the stream from `readBack` on.
   */
  start(): void {
    this.subscription = this.deps.core.subscribe(this.events, (message) => {
      const peer = this.messageOf(message.json<unknown>());
      if (peer === undefined || peer.instance === this.deps.instance || peer.kind !== 'event') return;
      this.deps.engine.peerRecorded(peer.event);
    });
    this.deps.engine.attachPeers(this);
  }

  stop(): void {
    this.deps.engine.attachPeers(undefined);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.following?.stop();
    this.following = undefined;
  }

  /**
   * The admissions the stream holds (and what became of them), into the rolling windows; then admissions are
   * sequenced from the last one. Called once at start, after `start` so nothing published meanwhile is missed
   * (an order read twice is counted once).
   */
  async readBack(): Promise<void> {
    const { streams, stream } = this.deps;
    // taken before the read: an admission stored after it makes this instance's first publication read it
    const last = (await streams.lastMessage<unknown>(stream, this.admissions))?.seq ?? 0;
    const admitted = new Map<string, { order: RiskOrder; admittedAt: number; traded: boolean }>();
    let unreadable = 0;
    const read = (_subject: string, value: unknown): void => {
      const message = peerMessageOf(value);
      if (message === undefined) unreadable += 1;
      else if (message.kind === 'admitted') {
        admitted.set(message.order.orderId, { order: message.order, admittedAt: message.admittedAt, traded: true });
      } else if (message.event.kind === 'not-executed') {
        const known = admitted.get(message.event.orderId);
        if (known !== undefined) known.traded = false;
      }
    };
    await streams.readAll<unknown>(stream, this.admissions, read);
    await streams.readAll<unknown>(stream, this.events, read);
    if (unreadable > 0) {
      this.deps.metrics?.eventsIgnored.inc(unreadable);
      this.deps.logger.warn('risk book messages read back without the expected shape; ignored', { unreadable });
    }
    this.deps.engine.restoreWindow([...admitted.values()]);
    this.deps.engine.startSequence(last);
    // every admission stored from then on, the others' counted, this instance's own moving the sequence on
    this.following = this.deps.streams.follow<unknown>(this.deps.stream, this.admissions, last, (stored) => {
      const peer = this.messageOf(stored.value);
      if (peer?.kind !== 'admitted') return;
      if (peer.instance === this.deps.instance) this.deps.engine.sequenceSeen(stored.seq);
      else this.deps.engine.peerAdmitted(peer.order, peer.admittedAt, stored.seq);
    });
  }

  /** A message of the expected shape, or undefined (counted and logged). */
  private messageOf(value: unknown): RiskBookMessage | undefined {
    const message = peerMessageOf(value);
    if (message === undefined) {
      this.deps.metrics?.eventsIgnored.inc();
      this.deps.logger.warn('a risk book message from a peer does not have the expected shape; ignored');
    }
    return message;
  }

  async publishAdmission(order: RiskOrder, admittedAt: number, expectedLast: number): Promise<AdmissionAnswer> {
    const message: RiskBookMessage = { v: 1, instance: this.deps.instance, kind: 'admitted', admittedAt, order };
    if (this.deps.clock.now() < this.unansweredUntil) {
      return { kind: 'unsequenced', reason: 'the admission stream did not answer a moment ago' };
    }
    try {
      const ack = await this.deps.publisher.publishDurable(this.admissions, message, {
        msgId: `admitted:${order.orderId}`,
        kind: 'risk.book',
        attempts: 1,
        ackTimeoutMs: ADMISSION_ACK_MS,
        expectLastSubjectSequence: expectedLast,
      });
      return { kind: 'stored', seq: ack.seq };
    } catch (error) {
      if (!isWrongLastSequence(error)) {
        // the stream may be gone (a memory stream lost with its server: a publication then waits for no answer)
        this.unansweredUntil = this.deps.clock.now() + UNANSWERED_PAUSE_MS;
        this.declare().catch(() => undefined);
        return { kind: 'unsequenced', reason: error instanceof Error ? error.message : String(error) };
      }
    }
    const missed: PeerAdmission[] = [];
    const last = await this.deps.streams.readAfter<unknown>(
      this.deps.stream,
      this.admissions,
      expectedLast,
      (stored) => {
        const peer = peerMessageOf(stored.value);
        if (peer?.kind === 'admitted') missed.push({ order: peer.order, admittedAt: peer.admittedAt });
      },
    );
    return { kind: 'overtaken', missed, last };
  }

  /** An admission not sequenced: published plainly (the stream still stores it; the others read it in turn). */
  admitted(order: RiskOrder, admittedAt: number): void {
    this.publish(this.admissions, { v: 1, instance: this.deps.instance, kind: 'admitted', admittedAt, order });
  }

  recorded(event: RiskOrderEvent): void {
    this.publish(this.events, { v: 1, instance: this.deps.instance, kind: 'event', event });
  }

  private publish(subject: string, message: RiskBookMessage): void {
    this.deps.publisher.publish(subject, message, 'risk.book');
  }
}

const SIDES = ['BUY', 'SELL'];
const EVENT_KINDS = ['filled', 'not-executed', 'unknown', 'undone', 'late-fill'];
const STATUSES = ['live', 'stale', 'stopped', 'unknown'];

/** The message if it has the shape the checks rely on (they never see a field of the wrong type). */
export function peerMessageOf(value: unknown): RiskBookMessage | undefined {
  if (!isObject(value) || value['v'] !== 1 || typeof value['instance'] !== 'string') return undefined;
  if (value['kind'] === 'admitted') {
    const order = value['order'];
    if (typeof value['admittedAt'] !== 'number' || !isObject(order) || !isObject(order['quote'])) return undefined;
    const quote = order['quote'];
    const strings = ['orderId', 'strategyId', 'accountGroup', 'instrument'].every((k) => typeof order[k] === 'string');
    const optionalStrings = ['price', 'quantity', 'quoteAmount'].every(
      (k) => quote[k] === undefined || typeof quote[k] === 'string',
    );
    const optionalNumbers = ['venueTimestamp', 'quoteExpiresAt'].every(
      (k) => quote[k] === undefined || typeof quote[k] === 'number',
    );
    const ok =
      strings &&
      SIDES.includes(order['side'] as string) &&
      typeof quote['quoteId'] === 'string' &&
      STATUSES.includes(quote['status'] as string) &&
      optionalStrings &&
      optionalNumbers &&
      (order['worstPrice'] === undefined || typeof order['worstPrice'] === 'string');
    return ok ? (value as RiskBookMessage) : undefined;
  }
  if (value['kind'] === 'event') {
    const event = value['event'];
    if (!isObject(event) || typeof event['orderId'] !== 'string' || !EVENT_KINDS.includes(event['kind'] as string)) {
      return undefined;
    }
    if (
      event['kind'] === 'filled' &&
      !['baseAmount', 'quoteAmount', 'price'].every((k) => typeof event[k] === 'string')
    ) {
      return undefined;
    }
    if ((event['kind'] === 'undone' || event['kind'] === 'late-fill') && !isUndoneFill(event)) return undefined;
    return value as RiskBookMessage;
  }
  return undefined;
}

/** An undone (or late) fill names its amounts and whose fill it was (the positions it is taken from or added to). */
function isUndoneFill(event: Record<string, unknown>): boolean {
  const order = event['order'];
  return (
    ['baseAmount', 'quoteAmount'].every((k) => typeof event[k] === 'string') &&
    isObject(order) &&
    ['strategyId', 'accountGroup', 'instrument'].every((k) => typeof order[k] === 'string') &&
    SIDES.includes(order['side'] as string)
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

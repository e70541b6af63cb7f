/**
 * Keeps the risk books of an account's execution instances together: each instance publishes what it admits
 * and every event it learns of an order on `…exec.risk.book`, and counts what the others publish. So the
 * per-minute, rate, exposure and quote-size limits hold for the account, not per instance.
 *
 * Best effort (core NATS): two instances deciding within the same few milliseconds may still both use the
 * same headroom, and a message lost while NATS is down is not replayed (a restart rebuilds the book from the
 * journal). Within one instance admits stay strictly serial (the risk actor).
 *
 * A stream keeps the subject's messages a few minutes (`RiskStreamName.book`): a starting instance reads the
 * last minute's admissions back, every instance's and its own earlier life's, so a restart does not empty the
 * per-second and per-minute windows (the journal holds only the orders still open).
 */
import { riskSubjects, type Subjects } from '#contracts';
import type { BusCore, BusPublisher, BusStreams, BusSubscription } from '#bus';
import type { JsonLogger } from '#observability';
import type { RiskOrder, RiskOrderEvent } from './risk-gate.js';
import type { RiskEngine, RiskPeers } from './risk-engine.js';
import type { RiskMetrics } from './risk-metrics.js';

/**
 * On `…exec.risk.book`: internal to the execution app (its instances are one program), so in the seam's own
 * types rather than in libs/contracts. Documented in docs/execution-risk.md.
 */
export type RiskBookMessage =
  | { v: 1; instance: string; kind: 'admitted'; admittedAt: number; order: RiskOrder }
  | { v: 1; instance: string; kind: 'event'; event: RiskOrderEvent };

export class RiskBookSync implements RiskPeers {
  private readonly subject: string;
  private subscription: BusSubscription | undefined;

  constructor(
    private readonly deps: {
      core: BusCore;
      publisher: BusPublisher;
      engine: RiskEngine;
      instance: string;
      logger: JsonLogger;
      metrics?: RiskMetrics;
    },
    subjects: Subjects,
  ) {
    this.subject = riskSubjects(subjects).book;
  }

  start(): void {
    this.subscription = this.deps.core.subscribe(this.subject, (message) => {
      const peer = peerMessageOf(message.json<unknown>());
      if (peer === undefined) {
        this.deps.metrics?.eventsIgnored.inc();
        this.deps.logger.warn('a risk book message from a peer does not have the expected shape; ignored');
        return;
      }
      if (peer.instance === this.deps.instance) return;
      if (peer.kind === 'admitted') this.deps.engine.peerAdmitted(peer.order, peer.admittedAt);
      else this.deps.engine.peerRecorded(peer.event);
    });
    this.deps.engine.attachPeers(this);
  }

  stop(): void {
    this.deps.engine.attachPeers(undefined);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /**
   * The admissions the stream holds (and what became of them), into the rolling windows: called once at start,
   * after `start` so nothing published meanwhile is missed (an order read twice is counted once).
   */
  async readBack(streams: Pick<BusStreams, 'readAll'>, stream: string): Promise<void> {
    const admitted = new Map<string, { order: RiskOrder; admittedAt: number; traded: boolean }>();
    let unreadable = 0;
    await streams.readAll<unknown>(stream, this.subject, (_subject, value) => {
      const message = peerMessageOf(value);
      if (message === undefined) unreadable += 1;
      else if (message.kind === 'admitted') {
        admitted.set(message.order.orderId, { order: message.order, admittedAt: message.admittedAt, traded: true });
      } else if (message.event.kind === 'not-executed') {
        const known = admitted.get(message.event.orderId);
        if (known !== undefined) known.traded = false;
      }
    });
    if (unreadable > 0) {
      this.deps.metrics?.eventsIgnored.inc(unreadable);
      this.deps.logger.warn('risk book messages read back without the expected shape; ignored', { unreadable });
    }
    this.deps.engine.restoreWindow([...admitted.values()]);
  }

  admitted(order: RiskOrder, admittedAt: number): void {
    this.publish({ v: 1, instance: this.deps.instance, kind: 'admitted', admittedAt, order });
  }

  recorded(event: RiskOrderEvent): void {
    this.publish({ v: 1, instance: this.deps.instance, kind: 'event', event });
  }

  private publish(message: RiskBookMessage): void {
    this.deps.publisher.publish(this.subject, message, 'risk.book');
  }
}

const SIDES = ['BUY', 'SELL'];
const EVENT_KINDS = ['filled', 'not-executed', 'unknown', 'undone'];
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
    if (event['kind'] === 'undone' && !isUndoneFill(event)) return undefined;
    return value as RiskBookMessage;
  }
  return undefined;
}

/** An undone fill names its amounts and whose fill it was (the positions it is taken from). */
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

/**
 * Keeps the risk books of an account's execution instances together: each instance publishes what it admits
 * and every event it learns of an order on `…exec.risk.book`, and counts what the others publish. So the
 * per-minute, rate, exposure and quote-size limits hold for the account, not per instance.
 *
 * Best effort (core NATS): two instances deciding within the same few milliseconds may still both use the
 * same headroom, and a message lost while NATS is down is not replayed (a restart rebuilds the book from the
 * journal). Within one instance admits stay strictly serial (the risk actor).
 */
import { riskSubjects, type RiskBookMessage, type Subjects } from '#contracts';
import type { BusCore, BusPublisher, BusSubscription } from '#bus';
import type { JsonLogger } from '#observability';
import type { RiskOrder, RiskOrderEvent } from './risk-gate.js';
import type { RiskEngine, RiskPeers } from './risk-engine.js';
import type { RiskMetrics } from './risk-metrics.js';

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
      if (peer.kind === 'admitted') this.deps.engine.peerAdmitted(peer.order as RiskOrder, peer.admittedAt);
      else this.deps.engine.peerRecorded(peer.event);
    });
    this.deps.engine.attachPeers(this);
  }

  stop(): void {
    this.deps.engine.attachPeers(undefined);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
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
const EVENT_KINDS = ['filled', 'not-executed', 'unknown'];
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
    return value as RiskBookMessage;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

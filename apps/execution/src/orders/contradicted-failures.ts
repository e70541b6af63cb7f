/**
 * Repairs what it can when the venue contradicts a published FAILED with evidence of execution (spec-gaps K7). The
 * connector stores each contradiction of a final outcome on `order.contradiction.{clientRequestId}` in the order
 * outcome stream; the app's instances share one durable consumer of them, so each is handled once, and again after
 * a crash before its ack. The decisions are pure (`contradicted-failure.ts`); this is the shell.
 *
 * For a FAILED order of this app, settled and closed: the venue's trade list by `clientRef` (the reconciliation read
 * of an UNKNOWN order). The trade there → its fill is booked in the strategy's position and risk's exposure (each
 * once: the position's order list, risk's `late-fill:<orderId>`), the record says `correction` EXECUTED_AFTER_FAILED
 * and one more order event announces it (`Nats-Msg-Id` `{orderId}:correction`). No trade → asked again (doubling
 * backoff) until the horizon, then FAILED_STANDS is recorded and announced the same way. The order stays FAILED:
 * never a second final (docs/execution.md#contradicted-outcomes).
 */
import type { BusConsumers, BusPublisher, BusStreams, DurableMessage } from '#bus';
import { DurableFollower } from '#bus';
import {
  orderContradictionOf,
  StreamName,
  type ExecutionSubjects,
  type OrderContradiction,
  type OrderCorrection,
  type Subjects,
} from '#contracts';
import type { Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { Counter } from 'prom-client';
import type { RiskGate } from '../risk/risk-gate.js';
import type { VenueRecords } from '../venue/venue-evidence.js';
import { contradictionStep, reviewVerdict } from './contradicted-failure.js';
import type { OrderJournal } from './order-journal.js';
import type { OrderRecord } from './order-record.js';
import { jsonOrUndefined, markAfterFinal, untilSettledDelayMs } from './after-final.js';
import type { Positions } from './positions.js';
import { finalRiskEvent } from './risk-restore.js';

export const CONTRADICTED_FAILURES_DURABLE = 'execution-order-contradictions';
/** A contradiction of an order not settled and closed yet: asked about again after this, doubling up to the maximum. */
/** No trade this long after the contradiction: the FAILED stands (the venue's order retention, §4.10, spec-gaps K7). */
export const CONTRADICTION_HORIZON_MS = 24 * 3_600_000;

export interface ContradictedFailuresDeps {
  consumers: BusConsumers;
  publisher: BusPublisher;
  streams: Pick<BusStreams, 'lastMessage'>;
  eventStream: string;
  journal: OrderJournal;
  positions: Positions;
  risk: RiskGate;
  venue: VenueRecords;
  subjects: Subjects;
  execSubjects: ExecutionSubjects;
  clock: Clock;
  /** Every contradiction, by source (`execution_order_outcome_contradictions_total`). */
  contradictions: Counter<'source'>;
  results: Counter<'result'>;
  logger: JsonLogger;
  ackWaitMs: number;
  /** Backoff of the trade-list reads (the order reconciliation's). */
  reconcileInitialMs: number;
  reconcileMaxMs: number;
  horizonMs?: number;
}

export class ContradictedFailures {
  private readonly follower: DurableFollower;
  private readonly log: JsonLogger;

  constructor(private readonly deps: ContradictedFailuresDeps) {
    this.log = deps.logger.child('ContradictedFailures');
    this.follower = new DurableFollower({
      consumers: deps.consumers,
      consumer: {
        stream: StreamName.orderOutcomes(deps.subjects.account),
        durable: CONTRADICTED_FAILURES_DURABLE,
        filterSubject: deps.subjects.allOrderContradictions,
        ackWaitMs: deps.ackWaitMs,
        handle: (message) => this.onContradiction(message),
      },
      clock: deps.clock,
      onAttached: () => this.log.info('following contradicted order outcomes'),
      onWaiting: (error) =>
        this.log.debug('waiting for the order outcome stream to carry contradictions', {
          error: error instanceof Error ? error.message.slice(0, 200) : String(error),
        }),
    });
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  private async onContradiction(message: DurableMessage): Promise<void> {
    const contradiction = orderContradictionOf(jsonOrUndefined(message.data));
    if (contradiction === undefined) {
      this.deps.results.inc({ result: 'unreadable' });
      this.log.warn('an order contradiction could not be read; skipped', { subject: message.subject.slice(0, 200) });
      return message.ack();
    }
    if (message.deliveryCount === 1) this.deps.contradictions.inc({ source: contradiction.source });
    const orderId = await this.deps.journal.orderIdOf(contradiction.clientRequestId);
    const read = orderId === undefined ? undefined : await this.deps.journal.read(orderId);
    const open = read === undefined ? false : await this.deps.journal.isOpen(read.record.orderId);
    const step = contradictionStep(read?.record, open, contradiction);
    switch (step.kind) {
      case 'not-ours':
        this.deps.results.inc({ result: 'not-ours' });
        return message.ack();
      case 'wait':
        return message.nak(untilSettledDelayMs(message.deliveryCount));
      case 'nothing':
        this.deps.results.inc({ result: step.result });
        this.log.warn('the venue contradicts the final state of an order; it stands', {
          orderId: read?.record.orderId,
          kept: contradiction.kept,
          status: contradiction.status,
          source: contradiction.source,
        });
        return message.ack();
      case 'announce':
        if (read !== undefined) await markAfterFinal(this.deps, read.record.orderId, 'correction', undefined);
        return message.ack();
      case 'read-trades':
        if (read !== undefined) await this.review(read.record, contradiction, message);
        return;
    }
  }

  private async review(record: OrderRecord, contradiction: OrderContradiction, message: DurableMessage): Promise<void> {
    const evidence = await this.deps.venue.evidence(record.clientRequestId, { orderState: false, trades: true });
    const verdict = reviewVerdict(record, contradiction, evidence.trades, {
      now: this.deps.clock.now(),
      deliveries: message.deliveryCount,
      horizonMs: this.deps.horizonMs ?? CONTRADICTION_HORIZON_MS,
      initialMs: this.deps.reconcileInitialMs,
      maxMs: this.deps.reconcileMaxMs,
    });
    if (verdict.kind === 'ask-again') {
      this.log.info('a contradicted FAILED has no trade in the venue list yet; asked again later', {
        orderId: record.orderId,
        delayMs: verdict.delayMs,
      });
      return message.nak(verdict.delayMs);
    }
    const { correction } = verdict;
    if (correction.verdict === 'EXECUTED_AFTER_FAILED') await this.book(record, correction);
    if ((await markAfterFinal(this.deps, record.orderId, 'correction', () => correction)) === 'marked') {
      this.deps.results.inc({
        result: correction.verdict === 'EXECUTED_AFTER_FAILED' ? 'executed-after-failed' : 'failed-stands',
      });
      const fields = { orderId: record.orderId, strategyId: record.strategyId, source: correction.source };
      if (correction.verdict === 'EXECUTED_AFTER_FAILED') {
        this.log.error('an order reported FAILED did execute (the venue lists its trade); its fill is booked now', {
          ...fields,
          tradeUuid: correction.tradeUuid?.slice(0, 64),
        });
      } else this.log.warn('a contradicted FAILED stands: no trade with its clientRef', fields);
    }
    return message.ack();
  }

  /**
   * Position, then risk, each once (the position's order list; risk's `late-fill:<orderId>`); then the record's mark
   * — a redelivery after a crash in between completes the rest, and a marked record is never booked again.
   */
  private async book(record: OrderRecord, correction: OrderCorrection): Promise<void> {
    const fill = correction.fill;
    if (fill === undefined) {
      this.log.error('a FAILED order executed, but neither its trade nor its quote gives its figures; not booked', {
        orderId: record.orderId,
      });
      return;
    }
    await this.deps.positions.apply(record.strategyId, record.orderId, record.side, fill);
    const filled = finalRiskEvent({ ...record, state: 'SUCCESS', fill });
    const instrument = record.instrument ?? `${fill.baseCurrency}.${fill.quoteCurrency}`;
    if (filled.kind !== 'filled') return;
    await this.deps.risk.lateFill({
      kind: 'late-fill',
      orderId: record.orderId,
      baseAmount: filled.baseAmount,
      quoteAmount: filled.quoteAmount,
      order: { strategyId: record.strategyId, accountGroup: record.accountGroup, side: record.side, instrument },
    });
  }
}

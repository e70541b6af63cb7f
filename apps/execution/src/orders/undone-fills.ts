/**
 * Takes back the fill of an order whose trade the venue undid after executing it (§3.2: CANCELLED before
 * settlement, FAILED when settlement failed). Account-sync mirrors the trades and publishes each change on its
 * history stream (`GW_ACCT_HISTORY_EVENTS_{account}`); the app's instances share one durable consumer of the
 * trade changes (`acct.trade.>`), so each change is handled once, and again after a crash before its ack.
 *
 * For an undone trade whose `clientRef` names an order of this app (the journal's `ref.` index) that settled
 * SUCCESS and is closed (its fill applied): the strategy's position and risk's positions (every instance's book
 * and the durable store) take the fill back, each once; the order record says `undone` and one more order event
 * announces it (`Nats-Msg-Id` `{orderId}:undone`). The order stays SUCCESS: it did execute. An order not final
 * yet is asked about again later; one that FAILED had nothing booked. Until account-sync has created its
 * stream, attaching is retried every few seconds (docs/execution.md#positions).
 */
import type { BusConsumers, BusPublisher, BusStreams, DurableMessage } from '#bus';
import { AccountStateName, DurableFollower } from '#bus';
import { AccountSyncSubjects, type ExecutionSubjects, type Subjects, type UndoneTrade } from '#contracts';
import type { Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { Counter } from 'prom-client';
import type { RiskGate } from '../risk/risk-gate.js';
import type { OrderJournal } from './order-journal.js';
import { isFinalState, type OrderRecord } from './order-record.js';
import { jsonOrUndefined, markAfterFinal, untilSettledDelayMs } from './after-final.js';
import type { Positions } from './positions.js';
import { undoneRiskEvent } from './risk-restore.js';
import { notItsTrade, tradeChangeOf } from './undone-trade.js';

export const UNDONE_FILLS_DURABLE = 'execution-undone-fills';
/** An undone trade of an order not settled yet: asked about again after this, doubling up to the maximum. */

export interface UndoneFillsDeps {
  consumers: BusConsumers;
  publisher: BusPublisher;
  /** Reads the order's last stored event (is the undone one stored already?). */
  streams: Pick<BusStreams, 'lastMessage'>;
  eventStream: string;
  journal: OrderJournal;
  positions: Positions;
  risk: RiskGate;
  subjects: Subjects;
  execSubjects: ExecutionSubjects;
  clock: Clock;
  results: Counter<'result'>;
  logger: JsonLogger;
  ackWaitMs: number;
}

export class UndoneFills {
  private readonly follower: DurableFollower;
  private readonly log: JsonLogger;

  constructor(private readonly deps: UndoneFillsDeps) {
    this.log = deps.logger.child('UndoneFills');
    this.follower = new DurableFollower({
      consumers: deps.consumers,
      consumer: {
        stream: AccountStateName.historyEvents(deps.subjects.account),
        durable: UNDONE_FILLS_DURABLE,
        filterSubject: new AccountSyncSubjects(deps.subjects).allStateChanges('trade'),
        ackWaitMs: deps.ackWaitMs,
        handle: (message) => this.onTradeChange(message),
      },
      clock: deps.clock,
      onAttached: () => this.log.info('following undone trades'),
      onWaiting: (error) =>
        this.log.debug('waiting for account-sync trade history stream', {
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

  private async onTradeChange(message: DurableMessage): Promise<void> {
    const change = tradeChangeOf(jsonOrUndefined(message.data));
    if (change.kind === 'unreadable') {
      this.deps.results.inc({ result: 'unreadable' });
      this.log.warn('a trade change could not be read; skipped', {
        subject: message.subject.slice(0, 200),
        reason: change.reason,
      });
      return message.ack();
    }
    if (change.kind === 'other') return message.ack();
    const orderId = await this.deps.journal.orderIdOf(change.clientRef);
    const read = orderId === undefined ? undefined : await this.deps.journal.read(orderId);
    if (read === undefined) {
      this.deps.results.inc({ result: 'not-ours' });
      return message.ack();
    }
    const { record } = read;
    if (!isFinalState(record.state) || (await this.deps.journal.isOpen(record.orderId))) {
      // its fill (if any) is not booked yet: once the order is settled and closed, this change comes again
      const delayMs = untilSettledDelayMs(message.deliveryCount);
      this.log.info('an undone trade names an order not settled yet; asked about again later', {
        orderId: record.orderId,
        state: record.state,
        delayMs,
      });
      return message.nak(delayMs);
    }
    if (record.state !== 'SUCCESS') {
      this.deps.results.inc({ result: 'not-filled' });
      return message.ack();
    }
    const mismatch = notItsTrade(change.facts, record);
    if (mismatch !== undefined) {
      this.deps.results.inc({ result: 'not-its-trade' });
      this.log.warn('an undone trade names an order by its clientRef but is not its trade; the fill stands', {
        orderId: record.orderId,
        tradeUuid: change.trade.tradeUuid.slice(0, 64),
        why: mismatch,
      });
      return message.ack();
    }
    await this.takeBack(record, change.trade);
    return message.ack();
  }

  /**
   * Position, risk, then the record's mark, each once: a record marked `undone` had its fill taken back before (the
   * stores remember only their last orders, so a change delivered again long after — a consumer created again from
   * the stream's start — must not reach them). A change handled again after a crash in between completes the rest.
   */
  private async takeBack(record: OrderRecord, trade: UndoneTrade): Promise<void> {
    if (record.undone === undefined) {
      if (record.fill !== undefined) {
        await this.deps.positions.undo(record.strategyId, record.orderId, record.side, record.fill);
      }
      const riskEvent = undoneRiskEvent(record);
      if (riskEvent !== undefined) await this.deps.risk.undo(riskEvent);
      else
        this.log.error('an undone fill names no currencies; risk exposure still counts it', {
          orderId: record.orderId,
        });
    }
    const marked = await markAfterFinal(this.deps, record.orderId, 'undone', (now) => ({
      ...trade,
      at: trade.at || now,
    }));
    if (marked === 'already') return;
    this.deps.results.inc({ result: 'taken-back' });
    this.log.warn('the venue undid the trade of an order; its fill was taken back from positions and risk', {
      orderId: record.orderId,
      strategyId: record.strategyId,
      tradeUuid: trade.tradeUuid.slice(0, 64),
      state: trade.state,
    });
  }
}

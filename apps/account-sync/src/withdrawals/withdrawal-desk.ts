/**
 * Withdrawals: submit, cancel, get, list, and the tracking of every request the gateway submitted.
 *
 * A request is sent at most once, ever: its intent (SUBMITTING) is created in the KV bucket under a requestId
 * derived from the caller's idempotency key BEFORE the venue is called, and right before the request leaves (after
 * any wait for the request budget) its send mark `sent.{requestId}` is created in the same bucket: only the creator
 * of the mark sends. An intent with no mark was never sent — its process ended first, or the mark could not be
 * written — and the desk holding the lease sends it (a repeat of the submit, the poll, the next start); one with a
 * mark may have left, and is only looked up. A mark is removed once its request's record holds the venue's answer
 * (`sendMarkSpent`); the creator of a mark sends only if the record is still SUBMITTING right after (compare-and-set),
 * so a copy read before that removal never sends it again. Our requestId rides in `clientComment` (the API has no reference
 * field): after a 500 the request is looked up in the venue's list by it, before anything else; an UNKNOWN request
 * is never re-sent.
 *
 * Each request's changes go through one mailbox (per requestId) and the pure `withdrawalTransition`; its
 * effects persist the record (KV) and publish the change (JetStream, `Nats-Msg-Id` per state). A poll of the
 * venue's lists on a schedule moves open requests forward (PENDING_APPROVAL → PENDING → PROCESSED, …), and
 * finds a request the venue carried out twice (two rows with its reference): logged, counted and kept on the
 * request, never followed (cancelling the second is an operator's task). A request answered REJECTED on a 401 is
 * still looked for in the lists for `rejectedWatchMs`: a venue that carried it out anyway (contrary to §5.5) moves
 * it to the venue's state, reported once, never re-sent nor cancelled by the gateway.
 *
 * A bucket without its ledger mark is new or lost (NATS lost its store): the venue's rows with our reference are
 * restored (withdrawal-restore.ts) before any submit of a key not held is taken (WD9).
 */
import {
  callerPartOfComment,
  errorReply,
  type ErrorReply,
  withdrawalStateRank,
  requestIdOfComment,
  sameAccountGroup,
  withdrawalComment,
  WithdrawalErrorCode,
  withdrawalEventMsgId,
  type WithdrawalCancelRequest,
  type WithdrawalGetRequest,
  type WithdrawalKind,
  type WithdrawalListItem,
  type WithdrawalListReply,
  type WithdrawalListRequest,
  type WithdrawalReply,
  type WithdrawalRequestState,
  type WithdrawalStateChanged,
  type WithdrawalSubjects,
  type WithdrawalSubmitRequest,
  type WithdrawalView,
} from '#contracts';
import { KeyedMailbox, type Cancel, type Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type {
  CryptoWithdrawalAcknowledgement,
  CryptoWithdrawalRequest,
  FiatWithdrawalRequest,
  Participant,
  ParticipantQuery,
  WithdrawalAcknowledgement,
  WithdrawalRequest,
  WithdrawalSendOptions,
} from '#venue-api';
import type { KnownAccountGroups, SyncTriggers } from '../sync/sync-triggers.js';
import {
  AMOUNT_SCALE,
  checkAccountGroup,
  checkDestination,
  checkRequestShape,
  knownGroupSpelling,
} from './withdrawal-checks.js';
import { ChangeOutbox } from './change-outbox.js';
import { duplicatesOf, legacyRequestIdOf, requestIdOf, rowIsOf, sameAmount } from './withdrawal-identity.js';
import { cancelGroupOf, LEDGER_MARK_KEY, restoredFieldAgrees, restoredRequests } from './withdrawal-restore.js';
import { restoreFailed, restoringHealth, restoringSeconds, type RestoringState } from './withdrawal-restoring.js';
import {
  isWatched,
  sendMarkSpent,
  withdrawalTransition,
  type DuplicateRow,
  type WithdrawalEvent,
  type WithdrawalRecord,
} from './withdrawal-machine.js';
import { countOpen, type WithdrawalMetrics } from './withdrawal-metrics.js';
import { classifyCancelFailure, classifySubmitFailure } from './withdrawal-outcomes.js';

/** The venue operations withdrawals use (the app's one VenueRestClient, within its request budget). */
export interface WithdrawalVenue {
  submitFiatWithdrawal(
    request: FiatWithdrawalRequest,
    options?: WithdrawalSendOptions,
  ): Promise<WithdrawalAcknowledgement>;
  /** Its answer is not shown (§4.9): a 2xx may name no uuid (WD7). */
  submitCryptoWithdrawal(
    request: CryptoWithdrawalRequest,
    options?: WithdrawalSendOptions,
  ): Promise<CryptoWithdrawalAcknowledgement>;
  listFiatWithdrawals(): Promise<WithdrawalRequest[]>;
  listCryptoWithdrawals(): Promise<WithdrawalRequest[]>;
  cancelFiatWithdrawal(uuid: string, accountGroupUuid: string): Promise<WithdrawalAcknowledgement>;
  cancelCryptoWithdrawal(uuid: string, accountGroupUuid: string): Promise<WithdrawalAcknowledgement>;
  getAccountDetails(query?: ParticipantQuery): Promise<Participant | undefined>;
}

/** The requests' KV bucket. */
export interface WithdrawalRecords {
  createIfAbsent(key: string, value: unknown): Promise<'created' | 'exists'>;
  get<T>(key: string): Promise<{ value: T; revision: number } | undefined>;
  put(key: string, value: unknown): Promise<number>;
  /** Writes only if the key is still at `revision`. */
  compareAndSet(key: string, value: unknown, revision: number): Promise<number | 'conflict'>;
  remove(key: string): Promise<void>;
  /** Removes only if the key is still at `revision`. */
  removeAt(key: string, revision: number): Promise<'removed' | 'conflict'>;
  /** Drops the markers removed keys leave behind (one per key ever removed otherwise). */
  purgeRemovedMarkers(olderThanMs?: number): Promise<number>;
  /** Every key's current value, read in one pass (the start's load: not one get per stored request). */
  values<T>(): Promise<Map<string, T>>;
}

export interface WithdrawalEvents {
  publish(subject: string, event: WithdrawalStateChanged, msgId: string): Promise<void>;
  /** The state of the last change the stream holds on `subject` (undefined: none, or it cannot be read). */
  lastPublished(subject: string): Promise<WithdrawalRequestState | undefined>;
  /**
   * The state of the last change of every request the stream holds, by subject, in one read (the start's check
   * of what was published); a failure falls back to `lastPublished` per request.
   */
  lastPublishedAll?(): Promise<Map<string, WithdrawalRequestState | undefined>>;
}

export interface WithdrawalDeskOptions {
  pollMs: number;
  unknownSettleMs: number;
  /**
   * How long a NOT_FOUND request is still looked for in the lists (default 7 days): it was taken as never created
   * after a settle time, and the venue may show it later (a lagging list) — then it moves to the state shown.
   */
  notFoundWatchMs?: number;
  /**
   * How long a request REJECTED on a 401 is still looked for in the lists (default 7 days): §5.5 makes a 401 "not
   * processed", but a venue that carried it out anyway must not leave treasury told REJECTED while money moves.
   */
  rejectedWatchMs?: number;
  stuckAfterMs: number;
  accountDetailsTtlMs: number;
  listLimit: number;
  /** The records' restoration failing this long turns the `withdrawals` health check down (default 60 s). */
  restoreGraceMs?: number;
  /** Fault injection for tests only (`FAULT_CRASH_AT`): SIGKILL itself at this step of a send. */
  crashAt?: WithdrawalCrashPoint;
}

/**
 * Where a test may crash a send: its intent stored, right before its send mark / right after it (the mark created
 * and the intent confirmed); or once the venue's answer is stored, before the spent send mark is removed.
 */
export type WithdrawalCrashPoint = 'before-send-mark' | 'after-send-mark' | 'before-send-mark-removal';

/** The bucket key of a request's send mark (a request id is hex: never a mark's key). */
const SEND_MARK_PREFIX = 'sent.';
export function sendMarkKey(requestId: string): string {
  return `${SEND_MARK_PREFIX}${requestId}`;
}

/** The send mark exists already: another life of the desk (or a process before a hand-over) may have sent it. */
class SendMarkHeld extends Error {}
/** The send mark could not be written (or the intent not confirmed after it): nothing was sent. */
class SendMarkFailed extends Error {}
/** The records bucket could not be read or written while checking or restoring the ledger. */
class LedgerStorageFailed extends Error {}
/**
 * The mark was created, and the record is not SUBMITTING at the revision read: another life sent and settled it
 * (its spent mark removed since) while this copy still said SUBMITTING. Nothing was sent.
 */
class SentElsewhere extends Error {}

const DEFAULT_LIST_LIMIT = 500;
/** What the rows of a list reply may take, under NATS's default 1 MB payload with room for the rest. */
const LIST_REPLY_BUDGET_BYTES = 768 * 1024;
const DEFAULT_NOT_FOUND_WATCH_MS = 7 * 24 * 3_600_000;
const DEFAULT_REJECTED_WATCH_MS = 7 * 24 * 3_600_000;
/** Account groups whose details (or 404) are remembered at once; a group the balances list is one of a few. */
const MAX_DETAILS_HELD = 256;
/** How often the markers that removed send marks leave in the bucket are purged (and once at start). */
const MARKER_PURGE_EVERY_MS = 3_600_000;

export class WithdrawalDesk {
  private readonly mailbox = new KeyedMailbox();
  /** Requests not final, kept in memory for the poll. */
  private readonly open = new Map<string, WithdrawalRecord>();
  private readonly details = new Map<string, { at: number; entity: Promise<Participant | undefined> }>();
  private cancelPoll: Cancel | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private storageFailure: string | undefined;
  private triggers: SyncTriggers | undefined;
  private groups: KnownAccountGroups | undefined;
  /** Change events not published yet (JetStream unavailable): tried again before the request's next one and at every poll. */
  private readonly outbox: ChangeOutbox;

  /** Set once the app stops: new venue work (submit, cancel, list) is refused at once, never left unanswered. */
  private stopping = false;
  /** Requests taken and not answered yet (some wait outside any mailbox): the stop waits for them. */
  private readonly inHand = new Set<Promise<unknown>>();

  /** Spent send marks whose removal failed (NATS): removed again with every poll. */
  private readonly spentMarks = new Set<string>();
  private markersPurgedAt: number | undefined;

  /** Read at start: the requests whose current state is published again if the stream's last change differs. */
  private readonly recent: Array<[string, WithdrawalRecord]> = [];

  /** The one run that checks the ledger mark and, the bucket new or lost, restores it from the venue's lists. */
  private ledgerCheck: Promise<void> | undefined;
  /** The restoration failing since, and why (logged once per episode; told by a gauge and /health). */
  private restoring: RestoringState;
  /** Loaded and not stopped: what `open` holds is every request followed (the gauges tell nothing otherwise). */
  private loaded = false;

  constructor(
    private readonly venue: WithdrawalVenue,
    private readonly records: WithdrawalRecords,
    private readonly events: WithdrawalEvents,
    private readonly subjects: WithdrawalSubjects,
    private readonly metrics: WithdrawalMetrics,
    private readonly clock: Clock,
    private readonly logger: JsonLogger,
    private readonly options: WithdrawalDeskOptions,
  ) {
    metrics.readRestoringFrom(() => restoringSeconds(this.restoring, clock.now()));
    // Read at each scrape, not at the polls. Nothing while not loaded (this instance is a standby until the lease
    // starts the desk), or while records NATS lost are not restored (the venue's rows are missing from `open`).
    metrics.readOpenFrom(() =>
      this.loaded && this.restoring === undefined
        ? countOpen(
            [...this.open.values()].map((record) => record.view),
            clock.now(),
            options.stuckAfterMs,
          )
        : undefined,
    );
    this.outbox = new ChangeOutbox(
      (change) => events.publish(change.subject, change.event, change.msgId),
      (requestId, change, error) =>
        this.logger.error('withdrawal change not published; published again with the next poll', {
          requestId,
          state: change.event.withdrawal.state,
          error: messageOf(error),
        }),
    );
  }

  useSyncTriggers(triggers: SyncTriggers): void {
    this.triggers = triggers;
  }

  /** The account groups the REST sync read: a submit naming another is refused before any venue call. */
  useKnownAccountGroups(groups: KnownAccountGroups): void {
    this.groups = groups;
  }

  /**
   * Loads the requests not final, and the NOT_FOUND and REJECTED-on-401 ones still watched; one caught mid-submit
   * by a crash is UNKNOWN (looked up, never re-sent). The bucket (requests and send marks) is read in one pass:
   * a take-over's wait does not grow with the requests stored (a week of them), only the few caught mid-submit
   * are written here.
   */
  async start(): Promise<void> {
    // A bucket new or lost (its ledger mark absent): the requests the venue holds with our reference come first.
    await this.ensureLedger().catch((error: unknown) => this.restoreFailed(error));
    const now = this.clock.now();
    const recentMs = Math.max(this.notFoundWatchMs, this.rejectedWatchMs);
    const stored = await this.records.values<unknown>();
    for (const [key, value] of stored) {
      if (key.startsWith(SEND_MARK_PREFIX)) continue;
      const record = value as WithdrawalRecord;
      // a life that ended between storing the venue's answer and removing the mark (a mark with no record stays)
      if (stored.has(sendMarkKey(key)) && sendMarkSpent(record)) this.spentMarks.add(key);
      if (now - record.view.updatedAt < recentMs) this.recent.push([key, record]);
      if (!this.watched(record)) continue;
      this.open.set(key, record);
      // One whose send may have left (its mark read with it, or of before marks) is looked up; one never sent
      // (no mark) is sent by the first poll, below — whose send mark, created only if absent, is the guard.
      const mayHaveLeft = record.sendMarks !== true || stored.has(sendMarkKey(key));
      if (record.view.state === 'SUBMITTING' && mayHaveLeft) {
        await this.mailbox.run(key, () =>
          this.apply(key, { kind: 'submit-unknown', reason: 'restarted during submit' }),
        );
      }
    }
    await this.tidySendMarks();
    this.refreshGauges();
    this.loaded = true;
    this.cancelPoll = this.clock.setInterval(() => void this.poll(), this.options.pollMs);
    if (this.open.size > 0) void this.poll();
  }

  /**
   * The intake stops: a submit, cancel or list that still arrives (the server routed it here before it knew) is
   * answered `ACCOUNT_SYNC_STOPPING` at once — nothing stored, nothing sent, ask again with the same key — rather
   * than started while the process is going away. Those in hand go on (`stop` waits for them).
   */
  refuseNewWork(): void {
    this.stopping = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelPoll?.();
    this.cancelPoll = undefined;
    await this.polling;
    await this.ledgerCheck?.catch(() => undefined);
    while (this.inHand.size > 0) await Promise.allSettled([...this.inHand]);
    await this.mailbox.drained();
    this.loaded = false; // stopped: it follows nothing now (the lease is released next)
  }

  /**
   * Down while the last write failed and the bucket still cannot be read (a probe), or while the records lost with
   * NATS have not been restored for longer than the grace period (treasury's new requests are refused meanwhile).
   */
  async health(): Promise<{ up: boolean; detail?: string }> {
    const restoring = restoringHealth(this.restoring, this.clock.now(), this.options.restoreGraceMs ?? 60_000);
    if (this.storageFailure === undefined) return restoring ?? { up: true };
    try {
      await this.records.get('health-probe');
      this.storageFailure = undefined;
      return restoring ?? { up: true };
    } catch {
      return { up: false, detail: `withdrawal storage failing: ${this.storageFailure}` };
    }
  }

  submit(request: WithdrawalSubmitRequest): Promise<WithdrawalReply> {
    return this.taken('submit', () => {
      const requestId = requestIdOf(this.subjects.account, request.idempotencyKey);
      return this.mailbox.run(requestId, () => this.submitOnce(requestId, request));
    });
  }

  async get(request: WithdrawalGetRequest): Promise<WithdrawalReply> {
    let reply = namingProblem(request);
    if (reply === undefined) {
      const record = await this.find(request);
      reply = record === undefined ? notFound() : { ok: true, withdrawal: record.view };
    }
    this.count('get', reply);
    return reply;
  }

  cancel(request: WithdrawalCancelRequest): Promise<WithdrawalReply> {
    return this.taken('cancel', async () => {
      const problem = namingProblem(request);
      if (problem !== undefined) return problem;
      let requestId: string | undefined;
      try {
        requestId = await this.requestIdIn(request);
      } catch (error) {
        this.storageFailure = messageOf(error);
        return errorReply(WithdrawalErrorCode.StorageUnavailable, 'could not read the requests; nothing was sent');
      }
      return requestId === undefined
        ? notFound()
        : await this.mailbox.run(requestId, () => this.cancelOnce(requestId, request.accountGroupUuid));
    });
  }

  /** The venue's own lists (every API-raised request of the groups where the key holds ROLE_OPERATIONS). */
  list(request: WithdrawalListRequest): Promise<WithdrawalListReply> {
    return this.taken('list', () => this.listOnce(request));
  }

  /** A request that goes to the venue: refused at once while stopping; otherwise held in hand until answered, counted. */
  private async taken<R extends { ok: boolean; error?: { code: string } }>(
    operation: 'submit' | 'cancel' | 'list',
    work: () => Promise<R>,
  ): Promise<R | ErrorReply> {
    if (this.stopping) {
      const refusal = errorReply(
        WithdrawalErrorCode.Stopping,
        'account-sync is stopping: nothing was stored or sent; ask again with the same idempotency key',
      );
      this.count(operation, refusal);
      return refusal;
    }
    const answer = work();
    this.inHand.add(answer);
    try {
      const reply = await answer;
      this.count(operation, reply);
      return reply;
    } finally {
      this.inHand.delete(answer);
    }
  }

  private async listOnce(request: WithdrawalListRequest): Promise<WithdrawalListReply> {
    const limit = request.limit ?? this.options.listLimit ?? DEFAULT_LIST_LIMIT;
    const kinds: WithdrawalKind[] = request.kind === undefined ? ['fiat', 'crypto'] : [request.kind];
    let reply: WithdrawalListReply;
    try {
      const items: WithdrawalListItem[] = [];
      let truncated = false;
      let bytes = 0;
      for (const kind of kinds) {
        const rows = await this.venueList(kind);
        truncated ||= rows.length > limit;
        for (const row of rows.slice(0, limit)) {
          // a NATS reply is bounded (1 MB by default): rows with long comments stop the list short, said so
          const item = listItemOf(kind, row);
          bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
          if (bytes > LIST_REPLY_BUDGET_BYTES) {
            truncated = true;
            break;
          }
          items.push(item);
        }
      }
      reply = { ok: true, withdrawals: items, truncated };
    } catch (error) {
      reply = errorReply(WithdrawalErrorCode.VenueUnavailable, messageOf(error));
    }
    return reply;
  }

  /**
   * One poll of the lists the open requests need, one at a time. Asked while one runs (it may have read the
   * lists before the change that prompted the call), one more follows it; concurrent callers share both.
   */
  poll(): Promise<void> {
    if (this.polling !== undefined) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = this.pollWhileAsked();
    return this.polling;
  }

  /** Cleared in the same turn as the last check of `pollAgain`: a call after it starts a new run, never a lost one. */
  private async pollWhileAsked(): Promise<void> {
    try {
      do {
        this.pollAgain = false;
        await this.pollOnce();
      } while (this.pollAgain && this.cancelPoll !== undefined);
    } finally {
      this.polling = undefined;
    }
  }

  // ---- submit

  private async submitOnce(requestId: string, asked: WithdrawalSubmitRequest): Promise<WithdrawalReply> {
    const knownGroups = this.groups?.knownAccountGroups();
    // the group as the venue's balances spell it (a UUID in either case names it, WD10): stored, sent and compared so
    const request = {
      ...asked,
      accountGroupUuid: knownGroupSpelling(asked.accountGroupUuid, knownGroups) ?? asked.accountGroupUuid,
    };
    let existing: { value: WithdrawalRecord } | undefined;
    try {
      existing = await this.heldFor(requestId, request.idempotencyKey);
      if (existing === undefined) {
        // A key not held: the bucket may be new or lost — the venue's rows with our reference are restored first,
        // so a key whose request the venue holds answers it and is never sent again (WD9).
        const refusal = await this.ledgerRefusal();
        if (refusal !== undefined) return refusal;
        existing = await this.heldFor(requestId, request.idempotencyKey);
      }
    } catch (error) {
      this.storageFailure = messageOf(error);
      return errorReply(WithdrawalErrorCode.StorageUnavailable, 'could not read the requests; nothing was sent');
    }
    if (existing !== undefined) {
      const repeat = this.repeatOf(existing.value, request);
      // an intent never sent (its process ended before its send mark): this repeat carries it out
      if (repeat.ok && this.unsent(existing.value)) return this.resumeUnsent(existing.value.view.requestId);
      return repeat;
    }
    const shape = checkRequestShape(request);
    if (shape !== undefined) return errorReply(shape.code, shape.message);
    const group = checkAccountGroup(request.accountGroupUuid, knownGroups);
    if (group !== undefined) {
      // a group created since the last balances read is known after the next: asked for now (coalesced, at most
      // one read per SYNC_TRIGGER_MIN_GAP_MS however many requests name unknown groups)
      this.triggers?.refreshAfter({ kind: 'resources', resources: ['balances'] });
      return errorReply(group.code, group.message);
    }
    let entity: Participant | undefined;
    try {
      entity = await this.accountDetails(request.accountGroupUuid);
    } catch (error) {
      return errorReply(WithdrawalErrorCode.VenueUnavailable, `account details unavailable: ${messageOf(error)}`);
    }
    if (entity === undefined) {
      return errorReply(
        WithdrawalErrorCode.InvalidRequest,
        'accountGroupUuid: the account group has no onboarded entity (account details 404)',
      );
    }
    const destination = checkDestination(request, entity);
    if (destination !== undefined) return errorReply(destination.code, destination.message);

    const now = this.clock.now();
    const record: WithdrawalRecord = { view: viewOf(requestId, request, now), sendMarks: true };
    let created: 'created' | 'exists';
    try {
      created = await this.records.createIfAbsent(requestId, record);
      this.storageFailure = undefined;
    } catch (error) {
      this.storageFailure = messageOf(error);
      await this.withdrawIntent(requestId, record);
      return errorReply(WithdrawalErrorCode.StorageUnavailable, 'could not store the request; nothing was sent');
    }
    if (created === 'exists') {
      const other = await this.records.get<WithdrawalRecord>(requestId);
      return other === undefined ? notFound() : this.repeatOf(other.value, request);
    }
    this.open.set(requestId, record);
    await this.publish(requestId, record, null, '');
    this.metrics.transitions.inc({ state: 'SUBMITTING' });
    return this.carryOut(requestId, record);
  }

  /**
   * The send of a stored intent: adopted when the venue's list shows it already, otherwise sent by this call only
   * if it creates the request's send mark (right before the request leaves). A mark found there means an earlier
   * life (or the process before a hand-over) may have sent it: looked up, never sent. A mark that cannot be written
   * sends nothing: the request stays SUBMITTING, and a repeat, the poll or the next start sends it.
   */
  private async carryOut(requestId: string, record: WithdrawalRecord): Promise<WithdrawalReply> {
    let event: WithdrawalEvent;
    const listed = await this.listedAlready(record.view);
    if (listed !== undefined) {
      this.logger.warn(
        'withdrawal already in the venue list before its send (its record was lost): adopted, not sent',
        {
          requestId,
        },
      );
      event = {
        kind: 'listed',
        venueUuid: listed.uuid,
        state: listed.state,
        ...(listed.lastUpdated !== undefined ? { lastUpdated: listed.lastUpdated } : {}),
      };
    } else {
      // The one send of this request.
      try {
        const ack = await this.send(record.view, requestId, () => this.markSend(requestId));
        const venueUuid = ack.uuid ?? (await this.uuidOfAcknowledged(record.view));
        event = venueUuid !== undefined ? { kind: 'submit-acknowledged', venueUuid } : { kind: 'submit-acknowledged' };
      } catch (error) {
        if (error instanceof SendMarkFailed) {
          this.logger.warn('withdrawal send mark not written; not sent — sent once it can be (repeat, poll, start)', {
            requestId,
            error: error.message,
          });
          return replyOf(this.open.get(requestId) ?? record);
        }
        if (error instanceof SentElsewhere) return this.settledElsewhere(requestId, record);
        if (error instanceof SendMarkHeld && this.stopping) {
          // a stop's straggler (the lease may be another's now): write nothing, the next start looks it up
          return replyOf({ view: { ...record.view, state: 'UNKNOWN', updatedAt: this.clock.now() } });
        }
        const failure: ReturnType<typeof classifySubmitFailure> =
          error instanceof SendMarkHeld
            ? { kind: 'unknown', reason: 'its send mark was there already: an earlier life may have sent it' }
            : classifySubmitFailure(error);
        event =
          failure.kind === 'refused'
            ? { kind: 'submit-refused', code: failure.code, message: failure.message }
            : { kind: 'submit-unknown', reason: failure.reason };
      }
    }
    try {
      await this.apply(requestId, event);
      if (event.kind === 'submit-unknown') {
        // Outcome undefined: the list first (found by our id), never a second submit.
        await this.settleFromLists(requestId, record.view.kind);
      }
      const settled = this.open.get(requestId) ?? (await this.records.get<WithdrawalRecord>(requestId))?.value;
      return settled === undefined ? notFound() : replyOf(settled);
    } catch (error) {
      // Sent, and what came back could not be stored: never an error that reads "failed" (the caller would ask
      // again under a new key). UNKNOWN to the caller; still open here, the lists settle it (found by our id).
      this.logger.error('withdrawal sent; its result could not be stored — UNKNOWN until the lists settle it', {
        requestId,
        error: messageOf(error),
      });
      const held = this.open.get(requestId) ?? record;
      return replyOf({ view: { ...held.view, state: 'UNKNOWN', updatedAt: this.clock.now() } });
    }
  }

  /**
   * An intent whose write failed may have been stored all the same (its answer lost): then nothing was sent
   * and, left there, every retry with the key would find a request SUBMITTING that no poll looks at. Ours (the
   * same creation time) is removed, so a retry sends it once; if it cannot even be read, the next start makes
   * a stored one UNKNOWN and the lists settle it (never sent).
   */
  private async withdrawIntent(requestId: string, record: WithdrawalRecord): Promise<void> {
    try {
      const stored = await this.records.get<WithdrawalRecord>(requestId);
      if (stored?.value.view.state === 'SUBMITTING' && stored.value.view.createdAt === record.view.createdAt) {
        // only at the revision read: one another process sent meanwhile (its confirmation wrote it) stays
        await this.records.removeAt(requestId, stored.revision);
      }
    } catch (error) {
      this.logger.warn('an intent that may be stored could not be checked; the next start settles it', {
        requestId,
        error: messageOf(error),
      });
    }
  }

  /** The request as stored in its intent (what a repeat or a later life sends is what the caller asked). */
  private send(
    view: WithdrawalView,
    requestId: string,
    beforeSend: () => Promise<void>,
  ): Promise<CryptoWithdrawalAcknowledgement> {
    const common = {
      accountGroupUuid: view.accountGroupUuid,
      ccy: view.ccy,
      amount: view.amount,
      clientComment: withdrawalComment(requestId, view.clientComment),
    };
    // checkRequestShape made sure the kind's destination is there and the amount fits the scale sent here.
    if (view.kind === 'fiat') {
      return this.venue.submitFiatWithdrawal(
        { ...common, bankAccountUuid: view.bankAccountUuid ?? '' },
        { beforeSend },
      );
    }
    const precision = AMOUNT_SCALE.crypto;
    return this.venue.submitCryptoWithdrawal(
      { ...common, walletUuid: view.walletUuid ?? '', precision },
      { beforeSend },
    );
  }

  /**
   * Right before the request leaves (the REST client's budget wait is over): "it may have left", durably. Only
   * the call that creates the mark sends (create-if-absent: two lives, or two processes at a hand-over, never both).
   */
  private async markSend(requestId: string): Promise<void> {
    if (this.options.crashAt === 'before-send-mark') crash();
    let created: 'created' | 'exists';
    try {
      created = await this.records.createIfAbsent(sendMarkKey(requestId), { requestId, markedAt: this.clock.now() });
    } catch (error) {
      this.storageFailure = messageOf(error);
      throw new SendMarkFailed(messageOf(error));
    }
    if (created === 'exists') throw new SendMarkHeld('send mark held');
    await this.confirmUnsent(requestId);
    if (this.options.crashAt === 'after-send-mark') crash();
  }

  /**
   * The mark is ours; the request leaves only if its stored record is still unsent, written back unchanged at the
   * revision read (compare-and-set, so a lagging read cannot pass). A spent mark is removed once the record holds
   * the venue's answer, and a copy read SUBMITTING before that (another process's at a hand-over, a repeat's read)
   * creates the mark again: the record, moved on, stops it. Not confirmed (NATS failing): nothing sent, our mark
   * removed again so that the request is sent once it can be (left there, it reads "may have left": UNKNOWN).
   */
  private async confirmUnsent(requestId: string): Promise<void> {
    let confirmed: boolean;
    try {
      const stored = await this.records.get<WithdrawalRecord>(requestId);
      confirmed =
        stored !== undefined &&
        this.unsent(stored.value) &&
        (await this.records.compareAndSet(requestId, stored.value, stored.revision)) !== 'conflict';
    } catch (error) {
      this.storageFailure = messageOf(error);
      await this.records.remove(sendMarkKey(requestId)).catch(() => undefined);
      throw new SendMarkFailed(`intent not confirmed after its send mark: ${messageOf(error)}`);
    }
    if (!confirmed) throw new SentElsewhere('settled by another life');
  }

  /**
   * Nothing sent: the request moved on in the store since this copy was read. The stored record answers (and
   * replaces the copy); still SUBMITTING (changed otherwise), its mark now there makes it UNKNOWN, looked up.
   */
  private async settledElsewhere(requestId: string, copy: WithdrawalRecord): Promise<WithdrawalReply> {
    this.logger.warn('withdrawal settled by another life since this copy was read: not sent', { requestId });
    this.open.delete(requestId);
    let stored: WithdrawalRecord | undefined;
    try {
      stored = (await this.records.get<WithdrawalRecord>(requestId))?.value;
    } catch (error) {
      this.storageFailure = messageOf(error);
      // not sent here; what the other life got is not readable now: unknown to the caller, who asks again
      return replyOf({ view: { ...copy.view, state: 'UNKNOWN', updatedAt: this.clock.now() } });
    }
    if (stored === undefined) return notFound();
    this.remember(requestId, stored);
    if (sendMarkSpent(stored)) await this.removeSendMark(requestId);
    return replyOf(stored);
  }

  /** A spent mark removed; one that cannot be now is removed again by the next poll (or the next start). */
  private async removeSendMark(requestId: string): Promise<void> {
    try {
      await this.records.remove(sendMarkKey(requestId));
      this.spentMarks.delete(requestId);
    } catch (error) {
      this.spentMarks.add(requestId);
      this.logger.warn('spent withdrawal send mark not removed; removed again with the next poll', {
        requestId,
        error: messageOf(error),
      });
    }
  }

  /** Spent marks not removed yet; the markers removed keys leave, hourly (the bucket keeps none per request). */
  private async tidySendMarks(): Promise<void> {
    for (const requestId of [...this.spentMarks]) await this.removeSendMark(requestId);
    const now = this.clock.now();
    if (this.markersPurgedAt !== undefined && now - this.markersPurgedAt < MARKER_PURGE_EVERY_MS) return;
    this.markersPurgedAt = now;
    try {
      await this.records.purgeRemovedMarkers();
    } catch (error) {
      this.logger.warn('markers of removed withdrawal send marks not purged; tried again in an hour', {
        error: messageOf(error),
      });
    }
  }

  /** SUBMITTING, guarded by send marks, and not at the venue yet (no venue uuid): no mark means never sent. */
  private unsent(record: WithdrawalRecord): boolean {
    return record.view.state === 'SUBMITTING' && record.sendMarks === true && record.view.venueUuid === undefined;
  }

  /** Whether a SUBMITTING request may have reached the venue: its mark is there, or it is of before marks. */
  private async sendMayHaveLeft(requestId: string, record: WithdrawalRecord): Promise<boolean> {
    if (record.sendMarks !== true) return true;
    return (await this.records.get(sendMarkKey(requestId))) !== undefined;
  }

  /**
   * An intent left SUBMITTING (in its mailbox: nothing else of it runs here): never sent (no mark) → carried out
   * now; its mark there → it may have left, its result was not stored → UNKNOWN, looked up in the lists.
   */
  private async resumeUnsent(requestId: string): Promise<WithdrawalReply> {
    const record = this.open.get(requestId) ?? (await this.records.get<WithdrawalRecord>(requestId))?.value;
    if (record === undefined) return notFound();
    if (!this.unsent(record)) return replyOf(record);
    if (await this.sendMayHaveLeft(requestId, record)) {
      await this.apply(requestId, { kind: 'submit-unknown', reason: 'the submit result was not stored' });
      await this.settleFromLists(requestId, record.view.kind);
      return replyOf(this.open.get(requestId) ?? record);
    }
    this.logger.info('withdrawal intent never sent (no send mark): sending it now', { requestId });
    return this.carryOut(requestId, record);
  }

  private repeatOf(record: WithdrawalRecord, request: WithdrawalSubmitRequest): WithdrawalReply {
    const view = withKey(record.view, request.idempotencyKey);
    // restored from the venue's row: a field it did not show agrees with anything (the request exists; never sent)
    const agrees =
      view.restored === undefined
        ? (held: string | undefined, asked: string | undefined) => held === asked
        : restoredFieldAgrees;
    // one group in either case (WD10): a request stored before its group was known keeps the caller's spelling
    const sameGroup =
      sameAccountGroup(view.accountGroupUuid, request.accountGroupUuid) ||
      (view.restored !== undefined && view.accountGroupUuid === '');
    const same =
      view.kind === request.kind &&
      sameGroup &&
      agrees(view.ccy, request.ccy) &&
      // a client that writes `100.5` for `100.50` repeats the request
      (sameAmount(view.amount, request.amount) || (view.restored !== undefined && view.amount === '')) &&
      agrees(view.bankAccountUuid, request.bankAccountUuid) &&
      agrees(view.walletUuid, request.walletUuid) &&
      (view.clientComment ?? '') === (request.clientComment ?? '');
    if (!same) {
      return {
        ...errorReply(
          WithdrawalErrorCode.IdempotencyConflict,
          'this idempotencyKey names an earlier request with other parameters',
        ),
        withdrawal: view,
      };
    }
    return replyOf({ ...record, view });
  }

  /** The record held for the key: its account's id, or the id of before (legacyRequestIdOf). Throws if unreadable. */
  private async heldFor(requestId: string, idempotencyKey: string): Promise<{ value: WithdrawalRecord } | undefined> {
    return (
      (await this.records.get<WithdrawalRecord>(requestId)) ??
      (await this.records.get<WithdrawalRecord>(legacyRequestIdOf(idempotencyKey)))
    );
  }

  // ---- the ledger restored after a lost store (WD9)

  /** Undefined once the ledger is whole; otherwise the refusal of a submit (nothing stored or sent). */
  private async ledgerRefusal(): Promise<WithdrawalReply | undefined> {
    try {
      await this.ensureLedger();
      return undefined;
    } catch (error) {
      this.restoreFailed(error);
      if (error instanceof LedgerStorageFailed) {
        return errorReply(WithdrawalErrorCode.StorageUnavailable, 'could not read the requests; nothing was sent');
      }
      return errorReply(
        WithdrawalErrorCode.Restoring,
        "the withdrawal records are being restored from the venue's lists (NATS lost them) and the lists could " +
          `not be read: ${messageOf(error)}; nothing was stored or sent — ask again with the same idempotency key`,
      );
    }
  }

  /** One check at a time, shared by every caller (a start, the polls, submits of keys not held). */
  private ensureLedger(): Promise<void> {
    this.ledgerCheck ??= this.restoreIfLost().finally(() => {
      this.ledgerCheck = undefined;
    });
    return this.ledgerCheck;
  }

  /**
   * The ledger mark held: nothing to do. Absent (a new bucket, or NATS lost it with everything in it): both venue
   * lists are read — either unreadable, nothing is written and the next call tries again — then what this process
   * still holds is written back, and each reference of ours the lists show and the bucket does not hold is stored
   * (create-if-absent), published and followed by the polls; the mark is written last.
   */
  private async restoreIfLost(): Promise<void> {
    const stored = async <T>(write: () => Promise<T>): Promise<T> => {
      try {
        return await write();
      } catch (error) {
        this.storageFailure = messageOf(error);
        throw new LedgerStorageFailed(messageOf(error));
      }
    };
    if ((await stored(() => this.records.get(LEDGER_MARK_KEY))) !== undefined) {
      this.restoring = undefined; // whole (restored by another life, or the bucket back)
      return;
    }
    const lists = { fiat: await this.venue.listFiatWithdrawals(), crypto: await this.venue.listCryptoWithdrawals() };
    const now = this.clock.now();
    // A store lost while this process ran: the requests it follows are written back as it knows them; one still
    // SUBMITTING may have left (its send mark went with the store) — its mark is written too: looked up, never sent.
    for (const [requestId, record] of [...this.open]) {
      await stored(() => this.records.createIfAbsent(requestId, record));
      if (record.view.state === 'SUBMITTING') {
        await stored(() => this.records.createIfAbsent(sendMarkKey(requestId), { requestId, markedAt: now }));
      }
    }
    let restored = 0;
    for (const kind of ['fiat', 'crypto'] as const) {
      for (const { requestId, record } of restoredRequests(kind, lists[kind], now)) {
        if (this.open.has(requestId)) continue;
        if ((await stored(() => this.records.createIfAbsent(requestId, record))) === 'exists') continue;
        restored += 1;
        this.metrics.restored.inc({ kind });
        this.remember(requestId, record);
        await this.publish(requestId, record, null, 'restored');
      }
    }
    await stored(() => this.records.put(LEDGER_MARK_KEY, { at: now, restored }));
    if (this.restoring !== undefined || restored > 0) {
      this.logger.warn("withdrawal records restored from the venue's lists (the records bucket was new or lost)", {
        restored,
        ...(this.restoring !== undefined ? { failedAttempts: this.restoring.failures } : {}),
      });
    }
    this.restoring = undefined;
    this.refreshGauges();
  }

  private restoreFailed(error: unknown): void {
    // the bucket unreadable says nothing of a restoration (told by the storage check); one pending stays pending
    if (error instanceof LedgerStorageFailed && this.restoring === undefined) return;
    const first = this.restoring === undefined;
    this.restoring = restoreFailed(this.restoring, this.clock.now(), messageOf(error));
    if (!first) return;
    this.logger.error(
      "withdrawal records not restored yet (the records bucket is new or lost): submits of keys not held are refused until the venue's lists can be read",
      { error: messageOf(error) },
    );
  }

  /**
   * A group's account details, remembered `accountDetailsTtlMs` — a 404 (undefined) too, so a group without an entity
   * costs one venue call per TTL, not one per request. Bounded: the oldest entry makes room.
   */
  private accountDetails(accountGroupUuid: string): Promise<Participant | undefined> {
    // held by the spelling asked (the venue's, once the groups are known): an answer to a spelling the venue may not
    // take (a 404 before the first balances read) never stands for another
    const cached = this.details.get(accountGroupUuid);
    const now = this.clock.now();
    if (cached !== undefined && now - cached.at < this.options.accountDetailsTtlMs) return cached.entity;
    this.details.delete(accountGroupUuid);
    if (this.details.size >= MAX_DETAILS_HELD) this.details.delete(this.details.keys().next().value as string);
    const entity = this.venue.getAccountDetails({ accountGroupUuid });
    this.details.set(accountGroupUuid, { at: now, entity });
    entity.catch(() => this.details.delete(accountGroupUuid));
    return entity;
  }

  // ---- cancel

  private async cancelOnce(requestId: string, namedGroup: string | undefined): Promise<WithdrawalReply> {
    const stored = this.open.get(requestId) ?? (await this.records.get<WithdrawalRecord>(requestId))?.value;
    if (stored === undefined) return notFound();
    const view = stored.view;
    if (view.state === 'REJECTED' && view.carriedOutAfterRejection !== undefined) {
      const message = 'the venue holds this request (after a 401) in a state not read yet; try again';
      return { ...errorReply(WithdrawalErrorCode.OutcomeUnknown, message), withdrawal: view };
    }
    if (view.state === 'REJECTED' || view.state === 'NOT_FOUND') {
      return errorReply(WithdrawalErrorCode.NotCancellable, `the request was never created (${view.state})`);
    }
    if (view.venueUuid === undefined) {
      return errorReply(WithdrawalErrorCode.OutcomeUnknown, 'the venue has not shown this request yet; try again');
    }
    if (withdrawalStateRank(view.state) >= withdrawalStateRank('PENDING')) {
      // §3.1: only PENDING_APPROVAL is cancellable, and a state never goes back: the venue is not asked
      return {
        ...errorReply(
          WithdrawalErrorCode.NotCancellable,
          `the request is ${view.state}: only PENDING_APPROVAL can be cancelled`,
        ),
        withdrawal: view,
      };
    }
    // a group named in the other case is sent as the venue spells it (WD10)
    const named =
      namedGroup === undefined
        ? undefined
        : (knownGroupSpelling(namedGroup, this.groups?.knownAccountGroups()) ?? namedGroup);
    const group = cancelGroupOf(view.accountGroupUuid, named);
    if (!group.ok) return { ...errorReply(group.code, group.message), withdrawal: view };
    await this.apply(requestId, { kind: 'cancel-sent' });
    try {
      if (view.kind === 'fiat') await this.venue.cancelFiatWithdrawal(view.venueUuid, group.group);
      else await this.venue.cancelCryptoWithdrawal(view.venueUuid, group.group);
    } catch (error) {
      const failure = classifyCancelFailure(error);
      // A refusal leaves the request as it was; an answer we could not read may still have cancelled it.
      if (failure.settled) await this.apply(requestId, { kind: 'cancel-refused' });
      void this.poll();
      const current = this.open.get(requestId) ?? stored;
      return { ...errorReply(failure.code, failure.message), withdrawal: current.view };
    }
    await this.apply(requestId, { kind: 'cancel-acknowledged' });
    const cancelled = (await this.records.get<WithdrawalRecord>(requestId))?.value ?? stored;
    return replyOf(cancelled);
  }

  // ---- lists

  /**
   * The venue's row of this request if it holds one already. Only the stored intent says it was never sent, and
   * a store lost with its server (or a write a failover dropped) forgets it: the list is asked once before the
   * send, and a row carrying this request's reference is adopted. A list that cannot be read does not stop the
   * send (said in the log): the intent was just created, the usual case by far.
   */
  private async listedAlready(view: WithdrawalView): Promise<WithdrawalRequest | undefined> {
    try {
      return (await this.venueList(view.kind)).find((row) => rowIsOf(view, row));
    } catch (error) {
      this.logger.warn('withdrawal list unavailable before the send; sending on the stored intent alone', {
        requestId: view.requestId,
        error: messageOf(error),
      });
      return undefined;
    }
  }

  /**
   * A submit the venue acknowledged without naming it (a crypto 2xx saying nothing contrary, WD7): its uuid as the
   * list shows it (found by our reference). Not listed yet, or the list unreadable: undefined — the request is still
   * PENDING_APPROVAL as acknowledged, and the polls tell its uuid (never UNKNOWN: the venue said it took it).
   */
  private async uuidOfAcknowledged(view: WithdrawalView): Promise<string | undefined> {
    try {
      const uuid = (await this.venueList(view.kind)).find((row) => rowIsOf(view, row))?.uuid;
      if (uuid === undefined) {
        this.logger.warn('withdrawal acknowledged without a venue uuid and not listed yet; the polls tell it', {
          requestId: view.requestId,
        });
      }
      return uuid;
    } catch (error) {
      this.logger.warn('withdrawal acknowledged without a venue uuid; the list is unavailable, the polls tell it', {
        requestId: view.requestId,
        error: messageOf(error),
      });
      return undefined;
    }
  }

  private venueList(kind: WithdrawalKind): Promise<WithdrawalRequest[]> {
    return kind === 'fiat' ? this.venue.listFiatWithdrawals() : this.venue.listCryptoWithdrawals();
  }

  private async settleFromLists(requestId: string, kind: WithdrawalKind): Promise<void> {
    try {
      const rows = await this.venueList(kind);
      // Already inside this request's mailbox: apply directly.
      await this.applyRows(kind, rows, new Set([requestId]), (id, event) => this.apply(id, event));
    } catch (error) {
      this.logger.warn('withdrawal list unavailable; the poll settles the request later', {
        requestId,
        error: messageOf(error),
      });
    }
  }

  private async pollOnce(): Promise<void> {
    // The bucket lost while running (a nats-server restarted empty) is restored here at the latest.
    if (!this.stopping) await this.ensureLedger().catch((error: unknown) => this.restoreFailed(error));
    // Changes a JetStream outage held back first (in each request's mailbox: in order with its new ones).
    for (const requestId of this.outbox.requestIds()) {
      await this.mailbox.run(requestId, () => this.outbox.flush(requestId));
    }
    for (const [requestId, record] of this.open) if (!this.watched(record)) this.open.delete(requestId);
    if (!this.stopping) await this.tidySendMarks();
    // Intents left SUBMITTING (a life that ended before their send mark, a mark not written): sent now, by the
    // lease holder; one whose mark is there is UNKNOWN (looked up below). Not while stopping: the next life does it.
    for (const [requestId, record] of [...this.open]) {
      if (this.stopping || !this.unsent(record)) continue;
      await this.mailbox
        .run(requestId, () => this.resumeUnsent(requestId))
        .catch((error: unknown) => {
          this.logger.warn('withdrawal intent not carried out; tried again with the next poll', {
            requestId,
            error: messageOf(error),
          });
        });
    }
    this.refreshGauges();
    if (this.open.size === 0) return;
    const kinds = new Set([...this.open.values()].map((record) => record.view.kind));
    for (const kind of kinds) {
      try {
        const rows = await this.venueList(kind);
        const ids = new Set([...this.open.entries()].filter(([, r]) => r.view.kind === kind).map(([id]) => id));
        await this.applyRows(kind, rows, ids, (id, event) => this.mailbox.run(id, () => this.apply(id, event)));
        this.metrics.polls.inc({ result: 'ok' });
      } catch (error) {
        this.metrics.polls.inc({ result: 'failed' });
        this.logger.warn('withdrawal list poll failed', { kind, error: messageOf(error) });
      }
    }
    this.refreshGauges();
  }

  /**
   * Each request of `ids` found in `rows` (by venue uuid, or by our id in clientComment) moves with it. Rows
   * besides that one carrying its reference and fields are duplicates: the venue carried the request out twice.
   */
  private async applyRows(
    kind: WithdrawalKind,
    rows: WithdrawalRequest[],
    ids: Set<string>,
    deliver: (requestId: string, event: WithdrawalEvent) => Promise<void>,
  ): Promise<void> {
    const byVenueUuid = new Map(rows.map((row) => [row.uuid, row]));
    const byRequestId = new Map<string, WithdrawalRequest[]>();
    for (const row of rows) {
      const id = requestIdOfComment(row.clientComment);
      if (id !== undefined) byRequestId.set(id, [...(byRequestId.get(id) ?? []), row]);
    }
    for (const requestId of ids) {
      const record = this.open.get(requestId);
      if (record === undefined || record.view.kind !== kind) continue;
      const ours = byRequestId.get(requestId) ?? [];
      const row =
        record.view.venueUuid !== undefined
          ? byVenueUuid.get(record.view.venueUuid)
          : ours.find((candidate) => rowIsOf(record.view, candidate));
      const event: WithdrawalEvent | undefined =
        row !== undefined
          ? {
              kind: 'listed',
              venueUuid: row.uuid,
              state: row.state,
              ...(row.lastUpdated !== undefined ? { lastUpdated: row.lastUpdated } : {}),
            }
          : record.view.venueUuid === undefined && !this.unsent(record) // never sent: resumed by the poll, not UNKNOWN
            ? { kind: 'absent-from-list' }
            : undefined;
      if (event !== undefined) await deliver(requestId, event);
      const tracked = record.view.venueUuid ?? row?.uuid;
      const duplicates = tracked === undefined ? [] : duplicatesOf(record.view, tracked, ours);
      if (duplicates.length > 0) {
        await deliver(requestId, { kind: 'duplicates-listed', rows: duplicates.map(duplicateRowOf) });
      }
    }
  }

  // ---- the transition and its effects

  private async apply(requestId: string, event: WithdrawalEvent): Promise<void> {
    const record = this.open.get(requestId) ?? (await this.records.get<WithdrawalRecord>(requestId))?.value;
    if (record === undefined) return;
    const next = withdrawalTransition(record, event, {
      now: this.clock.now(),
      unknownSettleMs: this.options.unknownSettleMs,
    });
    // Bookkeeping that is not persisted (lists without it while UNKNOWN) moves at once; a change that is
    // persisted moves only once stored, so a failed write is tried again by the next event.
    if (next.record !== record && !next.effects.some((effect) => effect.kind === 'persist')) {
      this.remember(requestId, next.record);
    }
    for (const effect of next.effects) {
      switch (effect.kind) {
        case 'persist':
          try {
            await this.records.put(requestId, next.record);
            this.storageFailure = undefined;
          } catch (error) {
            this.storageFailure = messageOf(error);
            throw error;
          }
          this.remember(requestId, next.record);
          if (sendMarkSpent(next.record) && !sendMarkSpent(record)) {
            // stored: the mark can decide nothing from now on (a send confirms the record SUBMITTING first)
            if (this.options.crashAt === 'before-send-mark-removal') crash();
            await this.removeSendMark(requestId);
          }
          break;
        case 'publish':
          await this.publish(requestId, next.record, effect.previousState, effect.msgSuffix);
          if (effect.msgSuffix === '') this.metrics.transitions.inc({ state: next.record.view.state });
          this.triggers?.refreshAfter({ kind: 'withdrawal', accountGroupUuid: next.record.view.accountGroupUuid });
          break;
        case 'log-unknown':
          this.logger.warn('withdrawal outcome unknown; looking it up in the venue list, never re-sending', {
            requestId,
            reason: effect.reason,
          });
          break;
        case 'log-settled-absent':
          this.logger.warn('withdrawal of unknown outcome absent from the venue lists for the settle time: NOT_FOUND', {
            requestId,
          });
          break;
        case 'log-duplicated':
          for (const duplicate of effect.rows) this.reportDuplicate(next.record.view, duplicate);
          break;
        case 'log-carried-out-after-rejection':
          this.reportCarriedOutAfterRejection(next.record.view);
          break;
      }
    }
    this.refreshGauges();
  }

  /** Once per duplicate venue request (it is stored on the request first): money may leave twice. */
  private reportDuplicate(view: WithdrawalView, duplicate: DuplicateRow): void {
    this.metrics.duplicated.inc();
    this.logger.error('withdrawal carried out twice at the venue', {
      requestId: view.requestId,
      kind: view.kind,
      accountGroupUuid: view.accountGroupUuid,
      ccy: view.ccy,
      venueUuid: view.venueUuid,
      amount: view.amount,
      state: view.state,
      duplicateVenueUuid: duplicate.venueUuid,
      duplicateAmount: duplicate.amount,
      duplicateState: duplicate.state,
      action:
        'cancel the duplicate at the venue while it is PENDING_APPROVAL (docs/runbook.md#gatewaywithdrawalduplicated)',
    });
  }

  /**
   * Once per request (the finding is stored on it first): the gateway answered REJECTED / VENUE_UNAUTHORIZED and the
   * venue holds the request. The caller may have submitted it again under a new key.
   */
  private reportCarriedOutAfterRejection(view: WithdrawalView): void {
    this.metrics.carriedOutAfterRejection.inc();
    this.logger.error('withdrawal reported REJECTED was carried out at the venue', {
      requestId: view.requestId,
      idempotencyKey: view.idempotencyKey,
      kind: view.kind,
      accountGroupUuid: view.accountGroupUuid,
      ccy: view.ccy,
      amount: view.amount,
      rejection: view.rejection?.code,
      venueUuid: view.carriedOutAfterRejection?.venueUuid,
      venueState: view.carriedOutAfterRejection?.venueState,
      state: view.state,
      action:
        'tell treasury; check it was not submitted again under another key (docs/runbook.md#gatewaywithdrawalcarriedoutafterrejection)',
    });
  }

  private remember(requestId: string, record: WithdrawalRecord): void {
    if (this.watched(record)) this.open.set(requestId, record);
    else this.open.delete(requestId);
  }

  /** Not final, or NOT_FOUND or REJECTED on a 401 within its watch: looked for in the lists. */
  private watched(record: WithdrawalRecord): boolean {
    return isWatched(record, {
      now: this.clock.now(),
      notFoundWatchMs: this.notFoundWatchMs,
      rejectedWatchMs: this.rejectedWatchMs,
    });
  }

  private get notFoundWatchMs(): number {
    return this.options.notFoundWatchMs ?? DEFAULT_NOT_FOUND_WATCH_MS;
  }

  private get rejectedWatchMs(): number {
    return this.options.rejectedWatchMs ?? DEFAULT_REJECTED_WATCH_MS;
  }

  private async publish(
    requestId: string,
    record: WithdrawalRecord,
    previousState: WithdrawalRequestState | null,
    suffix: string,
  ): Promise<void> {
    const event: WithdrawalStateChanged = { v: 1, previousState, withdrawal: record.view };
    const msgId = withdrawalEventMsgId(requestId, record.view.state, suffix);
    // The record is stored; a change not published now stays in the outbox (same msgId: never twice).
    await this.outbox.send(requestId, { subject: this.subjects.changed(requestId), event, msgId });
  }

  /**
   * After a restart: the current state of every request open or changed lately (within the NOT_FOUND watch) whose
   * last published change is another state — stored, then the process ended before it was published (a final
   * one included) — is published now. One already published is not published again (its msgId may be older
   * than the duplicate window).
   */
  async republishUnpublished(): Promise<void> {
    const recent = this.recent.splice(0);
    if (recent.length === 0) return;
    const all = await this.events.lastPublishedAll?.().catch((error: unknown) => {
      this.logger.warn('published withdrawal changes not read in one pass; read one request at a time', {
        error: messageOf(error),
      });
      return undefined;
    });
    for (const [requestId, stored] of recent) {
      const record = this.open.get(requestId) ?? stored;
      const subject = this.subjects.changed(requestId);
      const published = all !== undefined ? all.get(subject) : await this.events.lastPublished(subject);
      if (published === record.view.state) continue;
      // the change is from the state last published (null only when none was: a consumer's "new request")
      await this.mailbox.run(requestId, () => this.publish(requestId, record, published ?? null, ''));
    }
  }

  /** `open` and `stuck` are read at the scrape (the constructor); the outbox's size is set here. */
  private refreshGauges(): void {
    this.metrics.unpublished.set(this.outbox.size);
  }

  private async find(request: WithdrawalGetRequest): Promise<WithdrawalRecord | undefined> {
    const requestId = await this.requestIdIn(request);
    if (requestId === undefined) return undefined;
    const record = this.open.get(requestId) ?? (await this.records.get<WithdrawalRecord>(requestId))?.value;
    if (record === undefined || request.idempotencyKey === undefined) return record;
    return { ...record, view: withKey(record.view, request.idempotencyKey) };
  }

  /** By id, or by key: the account's id of the key, or the id of before (legacyRequestIdOf) when only that is held. */
  private async requestIdIn(request: WithdrawalGetRequest): Promise<string | undefined> {
    if (request.requestId !== undefined) return request.requestId;
    if (request.idempotencyKey === undefined) return undefined;
    const requestId = requestIdOf(this.subjects.account, request.idempotencyKey);
    if (this.open.has(requestId) || (await this.records.get(requestId)) !== undefined) return requestId;
    const legacy = legacyRequestIdOf(request.idempotencyKey);
    return this.open.has(legacy) || (await this.records.get(legacy)) !== undefined ? legacy : requestId;
  }

  private count(operation: string, reply: { ok: boolean; error?: { code: string } }): void {
    this.metrics.requests.inc({ operation, result: reply.ok ? 'ok' : (reply.error?.code ?? 'error') });
  }
}

/** A restored request's key, learnt from a caller whose key names it (the requestId is its digest). */
function withKey(view: WithdrawalView, idempotencyKey: string): WithdrawalView {
  return view.idempotencyKey === '' ? { ...view, idempotencyKey } : view;
}

function viewOf(requestId: string, request: WithdrawalSubmitRequest, now: number): WithdrawalView {
  return {
    requestId,
    idempotencyKey: request.idempotencyKey,
    kind: request.kind,
    state: 'SUBMITTING',
    accountGroupUuid: request.accountGroupUuid,
    ccy: request.ccy,
    amount: request.amount,
    ...(request.bankAccountUuid !== undefined ? { bankAccountUuid: request.bankAccountUuid } : {}),
    ...(request.walletUuid !== undefined ? { walletUuid: request.walletUuid } : {}),
    ...(request.clientComment !== undefined ? { clientComment: request.clientComment } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** REJECTED (and NOT_FOUND) answer as the typed failure they are, with the request attached. */
function replyOf(record: WithdrawalRecord): WithdrawalReply {
  const view = record.view;
  if (view.state === 'REJECTED') {
    return {
      ...errorReply(view.rejection?.code ?? WithdrawalErrorCode.VenueRejected, view.rejection?.message ?? 'rejected'),
      withdrawal: view,
    };
  }
  return { ok: true, withdrawal: view };
}

function notFound(): WithdrawalReply {
  return errorReply(WithdrawalErrorCode.NotFound, 'no such withdrawal request');
}

function listItemOf(kind: WithdrawalKind, row: WithdrawalRequest): WithdrawalListItem {
  const requestId = requestIdOfComment(row.clientComment);
  const comment = callerPartOfComment(row.clientComment);
  const item: WithdrawalListItem = { kind, venueUuid: row.uuid };
  if (requestId !== undefined) item.requestId = requestId;
  if (comment !== undefined) item.clientComment = comment;
  for (const field of [
    'state',
    'amount',
    'ccy',
    'accountGroupUuid',
    'accountGroupName',
    'requestor',
    'coinAddress',
    'dateCreated',
    'lastUpdated',
  ] as const) {
    const value = row[field];
    if (value !== undefined) item[field] = value;
  }
  if (row.bankAccount !== undefined) item.bankAccount = row.bankAccount;
  if (row.wallet !== undefined) item.wallet = row.wallet;
  return item;
}

function duplicateRowOf(row: WithdrawalRequest): DuplicateRow {
  return {
    venueUuid: row.uuid,
    ...(row.amount !== undefined ? { amount: row.amount } : {}),
    ...(row.state !== undefined ? { state: row.state } : {}),
  };
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 256);
}

/** A get or cancel names its request by exactly one of requestId and idempotencyKey (both could name two). */
function namingProblem(request: WithdrawalGetRequest): WithdrawalReply | undefined {
  const named = (request.requestId !== undefined ? 1 : 0) + (request.idempotencyKey !== undefined ? 1 : 0);
  if (named === 1) return undefined;
  return errorReply(
    WithdrawalErrorCode.InvalidRequest,
    named === 0 ? 'give requestId or idempotencyKey' : 'give requestId or idempotencyKey, not both',
  );
}

/** A test's crash: SIGKILL, nothing after it runs (as execution's `FAULT_CRASH_AT`). */
function crash(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

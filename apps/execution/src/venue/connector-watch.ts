/**
 * Whether a connector takes this account's orders to the venue: read from its status (`…connector.status`,
 * last value in `GW_CONNECTOR_STATUS_{account}`, published every few seconds and at every session change).
 * Execution accepts an order while the connector is away — a restart takes about a second — but its command must
 * leave within `ORDER_SEND_DEADLINE_MS`: with no connector, or its venue session not open, for longer than
 * `CONNECTOR_STALE_MS` every order accepted fails `SEND_DEADLINE_PASSED`, and /health says so.
 */
import { StreamName, type ConnectorStatus, type Subjects } from '#contracts';
import type { BusCore, BusStreams, BusSubscription } from '#bus';
import type { Clock } from '#actors';
import type { HealthCheckResult } from '#observability';

interface Heard {
  sessionState: string;
  /** When it was published (the connector's clock) or, live, received. */
  at: number;
  /** Its order queue's pace (ConnectorStatus.orderQueuePaceMs), when it says one. */
  orderQueuePaceMs: number | undefined;
}

export class ConnectorWatch {
  private last: Heard | undefined;
  /** When the connector was last heard with its venue session open. */
  private lastOpenAt: number | undefined;
  private subscription: BusSubscription | undefined;
  private startedAt = 0;
  /** The connector life heard last (ConnectorStatus.startedAt), and since when here, if it replaced another. */
  private life: { startedAt: number; heardSince: number | undefined } | undefined;

  constructor(
    private readonly deps: { core: BusCore; streams: BusStreams; subjects: Subjects; clock: Clock; staleMs: number },
  ) {}

  /** Follows the status live, after reading its last value back (a connector publishing nothing new is not lost). */
  async start(): Promise<void> {
    const { core, streams, subjects, clock } = this.deps;
    this.startedAt = clock.now();
    this.subscription = core.subscribe(subjects.connectorStatus, (message) =>
      this.heard(message.json<Partial<ConnectorStatus>>(), clock.now()),
    );
    const stored = await streams
      .lastMessage<Partial<ConnectorStatus>>(StreamName.connectorStatus(subjects.account), subjects.connectorStatus)
      .catch(() => undefined);
    if (stored !== undefined && this.last === undefined) {
      const at = typeof stored.value?.publishedAt === 'number' ? stored.value.publishedAt : 0;
      this.heard(stored.value, Math.min(at, clock.now()));
    }
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** When a connector status was last heard (any session state), if ever. */
  lastHeardAt(): number | undefined {
    return this.last?.at;
  }

  /**
   * Since when (this clock) the connector's current life has been heard, when it replaced a life heard here
   * before (a restart): what that life published is known to have come after; a live price heard before it is
   * an earlier life's, which no one keeps fresh. Undefined for the first life heard (nothing to tell apart).
   */
  lifeHeardSince(): number | undefined {
    return this.life?.heardSince;
  }

  /**
   * The connector's order queue pace, from a status heard within `staleMs`; undefined otherwise (none heard, too
   * old, or a connector that does not say it): intake then takes orders without estimating their wait.
   */
  orderQueuePaceMs(): number | undefined {
    const last = this.last;
    if (last === undefined || this.deps.clock.now() - last.at > this.deps.staleMs) return undefined;
    return last.orderQueuePaceMs;
  }

  health(): HealthCheckResult {
    const now = this.deps.clock.now();
    const { staleMs } = this.deps;
    const usableSince = this.lastOpenAt ?? this.startedAt;
    const paceUnknown =
      this.orderQueuePaceMs() === undefined
        ? `no order queue pace heard within ${seconds(staleMs)}: orders are accepted without estimating their wait (no ORDER_QUEUE_FULL)`
        : undefined;
    if (now - usableSince <= staleMs)
      return paceUnknown === undefined ? { up: true } : { up: true, detail: paceUnknown };
    const also = paceUnknown === undefined ? '' : `; ${paceUnknown}`;
    const consequence = 'orders accepted now fail SEND_DEADLINE_PASSED unless a connector sends them in time';
    const last = this.last;
    if (last === undefined) {
      const heard = `no connector status heard for ${seconds(now - this.startedAt)}`;
      return { up: false, detail: `${heard}: ${consequence}${also}` };
    }
    // a silent connector whose last word was "open" is silent, not open (outside tester: "says open; not open")
    const detail =
      last.sessionState === 'open'
        ? `no connector status heard for ${seconds(now - last.at)} (the last said its venue session was open)`
        : `the connector's last status (${seconds(now - last.at)} ago) says its venue session is ${last.sessionState}; not open for ${seconds(now - usableSince)}`;
    return { up: false, detail: `${detail}: ${consequence}${also}` };
  }

  private heard(status: Partial<ConnectorStatus> | undefined, at: number): void {
    if (status === null || typeof status !== 'object' || typeof status.sessionState !== 'string') return;
    const pace = status.orderQueuePaceMs;
    const orderQueuePaceMs = typeof pace === 'number' && Number.isSafeInteger(pace) && pace >= 0 ? pace : undefined;
    this.last = { sessionState: status.sessionState.slice(0, 32), at, orderQueuePaceMs };
    const startedAt = status.startedAt;
    // only a later life replaces one: an earlier life heard late (two processes overlapping) changes nothing
    if (typeof startedAt === 'number' && (this.life === undefined || startedAt > this.life.startedAt)) {
      this.life = { startedAt, heardSince: this.life === undefined ? undefined : at };
    }
    if (status.sessionState === 'open') this.lastOpenAt = Math.max(this.lastOpenAt ?? 0, at);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1_000)} s`;
}

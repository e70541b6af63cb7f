/**
 * What the NATS side needs from the venue side, as narrow interfaces. The venue module's singletons
 * (VenueSession, PriceStreamRegistry, OrderGateway, AccountGroupLookup) satisfy them structurally; unit
 * tests of this folder implement them in a few lines.
 */
import type { Observable } from 'rxjs';
import type {
  OrderCommand,
  OrderContradiction,
  OrderOutcome,
  PriceMessage,
  SessionFailure,
  SessionState,
  StreamRequest,
} from '#contracts';
import type { ReconcileHints, SendGate, SubscriptionLedger } from '../venue/index.js';

export interface SessionView {
  readonly state$: Observable<{ state: SessionState; since: number }>;
  readonly reconnects: number;
  /** Why the last attempt to open the session failed, if one did (bounded, never a secret). */
  readonly lastFailure?: string | undefined;
  /** The same as a code and a reason the gateway made (never venue text): the connector status carries it. */
  readonly lastFailureSummary?: SessionFailure | undefined;
  /** Times the venue replaced this session's connection (another client with our sessionId) within `windowMs`. */
  recentReplacements(): { count: number; windowMs: number };
  start(): void;
  stop(): Promise<void>;
}

export interface StreamKey {
  accountGroup: string;
  instrument: string;
  tenor: string;
  currency: string;
  quantity: string;
}

export type AcquireResult = { ok: true; leaseExpiresAt: number } | { ok: false; code: string; message: string };

export interface PriceStreams {
  acquire(request: StreamRequest): Promise<AcquireResult>;
  /** Granted subscriptions remembered in `ledger`; `leftovers`: those an earlier life left (tag → id). */
  useSubscriptionLedger(ledger: SubscriptionLedger, leftovers: ReadonlyMap<string, string>): void;
  release(request: StreamKey & { requester: string }): void;
  readonly prices$: Observable<PriceMessage>;
  counts(): { live: number; stale: number; pending: number };
  lastPriceAt(): number | undefined;
}

export interface OrderVenue {
  /** Sends the order unless `gate`, asked right before the frame leaves, holds it back. */
  submit(command: OrderCommand, gate?: SendGate): Promise<'sent' | 'held-back'>;
  /** Shutdown: no order frame may leave any more; a submit in progress is refused (SHUTTING_DOWN), unsent. */
  stopSending(): void;
  /** Orders not to send if their frames have not left (OrderRecall); how many had already. */
  recall(clientRequestIds: readonly string[]): { alreadySent: number };
  /** The execution app settled an order still reconciled here (ExecutionSettlements): stop; true if it was. */
  settledElsewhere(clientRequestId: string, status: 'SUCCESS' | 'FAILED'): boolean;
  /** How long each order waiting to be sent holds the ones behind it now, ms (published in the status). */
  orderQueuePaceMs(): number;
  /** Resolves an order whose frame may have left, never re-sending it; hints come from its mark. */
  reconcile(clientRequestId: string, hints?: ReconcileHints): Promise<void>;
  readonly outcomes$: Observable<OrderOutcome>;
  /** Venue evidence contradicting a final outcome published (K7): the outcome stands; execution is told. */
  readonly contradictions$: Observable<OrderContradiction>;
}

export interface AccountGroupSource {
  lookup(): Promise<{ uuid: string; name: string; natural: boolean }[]>;
}

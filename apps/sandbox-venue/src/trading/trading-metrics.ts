import { Counter, Gauge, type Registry } from 'prom-client';
import { ClientMessageType, ServiceMessageType } from '#venue-api';

const CLIENT_TYPES = new Set<string>(Object.values(ClientMessageType));
const SERVICE_TYPES = new Set<string>(Object.values(ServiceMessageType));

/** Labels stay bounded: a messageType outside the protocol is counted as `other`. */
function inboundLabel(messageType: string | undefined): string {
  if (messageType === undefined) return 'invalid';
  return CLIENT_TYPES.has(messageType) ? messageType : 'other';
}

/** The trading half's metrics, registered on the app's registry (`#observability` MetricsRegistry). */
export class TradingMetrics {
  readonly connections: Gauge;
  readonly subscriptions: Gauge;
  private readonly framesIn: Counter;
  private readonly framesOut: Counter;
  private readonly orders: Counter;
  private readonly rateLimited: Counter;
  private readonly refusedUpgrades: Counter;
  private readonly handlerErrors: Counter;
  private readonly quotesForgottenEarly: Counter;
  /** What the held-quotes gauge reads at each scrape (the quote book, once it exists). */
  private heldQuotes: () => number = () => 0;

  constructor(registry: Registry) {
    const registers = [registry];
    this.connections = new Gauge({
      name: 'sandbox_ws_connections',
      help: 'Open venue WebSocket connections',
      registers,
    });
    this.subscriptions = new Gauge({
      name: 'sandbox_ws_subscriptions',
      help: 'Live price subscriptions',
      registers,
    });
    this.framesIn = new Counter({
      name: 'sandbox_ws_frames_in_total',
      help: 'Client frames received, by messageType',
      labelNames: ['messageType'],
      registers,
    });
    this.framesOut = new Counter({
      name: 'sandbox_ws_frames_out_total',
      help: 'Frames sent, by messageType',
      labelNames: ['messageType'],
      registers,
    });
    this.orders = new Counter({
      name: 'sandbox_orders_total',
      help: 'Order outcomes, by status and code',
      labelNames: ['outcome', 'code'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'sandbox_ws_rate_limited_total',
      help: 'Client messages refused by a venue limit (W14 messages, W15 orders)',
      labelNames: ['limit'],
      registers,
    });
    this.refusedUpgrades = new Counter({
      name: 'sandbox_ws_refused_connections_total',
      help: 'Connections refused (token 401, invalid sessionId)',
      labelNames: ['reason'],
      registers,
    });
    this.handlerErrors = new Counter({
      name: 'sandbox_ws_handler_errors_total',
      help: 'Client messages whose handling failed inside the venue (a bug; the socket stays open)',
      labelNames: ['messageType'],
      registers,
    });
    const heldQuotes = (): number => this.heldQuotes();
    new Gauge({
      name: 'sandbox_quotes_held',
      help: 'Quotes the venue holds (issued, not yet expired: one per price update for ten minutes)',
      registers,
      collect() {
        this.set(heldQuotes());
      },
    });
    this.quotesForgottenEarly = new Counter({
      name: 'sandbox_quotes_forgotten_early_total',
      help: 'Quotes dropped before their ten minutes because the book was at SANDBOX_QUOTE_LIMIT',
      registers,
    });
  }

  watchQuotes(count: () => number): void {
    this.heldQuotes = count;
  }

  quoteForgottenEarly(): void {
    this.quotesForgottenEarly.inc();
  }

  handlerError(messageType: string): void {
    this.handlerErrors.inc({ messageType: inboundLabel(messageType) });
  }

  frameIn(messageType: string | undefined): void {
    this.framesIn.inc({ messageType: inboundLabel(messageType) });
  }

  frameOut(messageType: string): void {
    this.framesOut.inc({ messageType: SERVICE_TYPES.has(messageType) ? messageType : 'other' });
  }

  order(outcome: string, code: string): void {
    this.orders.inc({ outcome, code: code === '' ? 'none' : code });
  }

  rateLimit(limit: 'messages' | 'orders'): void {
    this.rateLimited.inc({ limit });
  }

  refused(reason: 'token' | 'sessionId'): void {
    this.refusedUpgrades.inc({ reason });
  }
}

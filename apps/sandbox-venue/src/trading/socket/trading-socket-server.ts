import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import WebSocket, { WebSocketServer } from 'ws';
import type { AccountGroupsReply } from '#venue-api';
import { ClientMessageType, SandboxCode, VenueCloseCode, WS_CLIENT_PATH } from '#venue-api';
import { JsonLogger } from '#observability';
import {
  TOKEN_REGISTRY,
  USER_DIRECTORY,
  VENUE_CLOCK,
  type TokenRegistry,
  type UserDirectory,
  type VenueClock,
} from '../../ports.js';
import { WsFaults } from '../faults/ws-faults.js';
import { Market } from '../market/market.js';
import { OrderDesk } from '../orders/order-desk.js';
import { QuoteBook } from '../quotes/quote-book.js';
import { parseSessionIdParam } from '../session/identifier-rules.js';
import { SubscriptionDesk } from '../subscriptions/subscription-desk.js';
import { TRADING_CONFIG, type TradingConfig } from '../trading-config.js';
import { TradingMetrics } from '../trading-metrics.js';
import { AccountLimits } from './account-limits.js';
import { parseClientFrame } from './client-frame.js';
import { ConnectionRegistry } from './connection-registry.js';
import { decodeParam, readUpgradeTarget } from './upgrade-request.js';
import { VenueConnection, type SessionBinding } from './venue-connection.js';

/** Largest client frame accepted; anything bigger closes the socket (ws answers 1009). */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/**
 * The venue WebSocket (§4.2) on `/svc/ws/ws-client`.
 *
 * Raw `ws` with `noServer`, not a Nest gateway, because the venue must act before and around the
 * handshake in ways a gateway hides: a missing, used or expired token refuses the HTTP upgrade itself
 * with 401 (W2, no socket at all), while an invalid sessionId completes the upgrade only to send exactly
 * one `error` frame and close (§4.2, W9). Other upgrade paths are left to whoever else listens.
 */
@Injectable()
export class TradingSocketServer implements OnModuleInit, OnModuleDestroy {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  private readonly attached = new Map<Server, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>();
  private readonly haltSubscription: Subscription;
  private readonly log: JsonLogger;
  private closing: Promise<void> | undefined;
  private quoteSweep: NodeJS.Timeout | undefined;

  constructor(
    @Inject(TRADING_CONFIG) private readonly config: TradingConfig,
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(TOKEN_REGISTRY) private readonly tokens: TokenRegistry,
    @Inject(USER_DIRECTORY) private readonly directory: UserDirectory,
    @Inject(Market) private readonly market: Market,
    @Inject(SubscriptionDesk) private readonly subscriptions: SubscriptionDesk,
    @Inject(QuoteBook) private readonly quotes: QuoteBook,
    @Inject(OrderDesk) private readonly orders: OrderDesk,
    @Inject(ConnectionRegistry) private readonly connections: ConnectionRegistry,
    @Inject(AccountLimits) private readonly limits: AccountLimits,
    @Inject(TradingMetrics) private readonly metrics: TradingMetrics,
    @Inject(WsFaults) private readonly faults: WsFaults,
    @Optional() @Inject(JsonLogger) logger?: JsonLogger,
  ) {
    this.log = (logger ?? new JsonLogger('sandbox-venue')).child('trading-socket');
    this.haltSubscription = this.market.halted$.subscribe(({ instrument, reason }) => {
      for (const connection of this.connections.all())
        this.subscriptions.stopInstrument(connection, instrument, reason);
    });
  }

  attach(server: Server): void {
    if (this.attached.has(server)) return;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => this.onUpgrade(req, socket, head);
    server.on('upgrade', onUpgrade);
    this.attached.set(server, onUpgrade);
  }

  onModuleInit(): void {
    this.market.start(this.config.marketTickMs);
    // Issuing sweeps too; the timer empties the book once no stream is left to issue.
    this.quoteSweep = setInterval(() => this.quotes.sweep(this.clock.now()), quoteSweepMs(this.config.quoteTtlMs));
    this.quoteSweep.unref();
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /** Idempotent: stops timers and drops every connection. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    for (const [server, listener] of this.attached) server.off('upgrade', listener);
    this.attached.clear();
    this.haltSubscription.unsubscribe();
    this.market.stop();
    if (this.quoteSweep !== undefined) clearInterval(this.quoteSweep);
    this.orders.close();
    for (const connection of this.connections.all()) {
      connection.dispose();
      connection.socket.terminate();
    }
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { path, rawParams } = readUpgradeTarget(req);
    if (path !== WS_CLIENT_PATH) return;
    const token = decodeParam(rawParams.get('token'));
    const grant = token === undefined || token === '' ? undefined : this.tokens.consume(token);
    if (grant === undefined) {
      this.metrics.refused('token');
      refuseUpgrade(socket, 401, 'Unauthorized');
      return;
    }
    const sessionParam = parseSessionIdParam(rawParams.get('sessionId'));
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const session: SessionBinding =
        sessionParam.kind === 'valid'
          ? { sessionId: sessionParam.sessionId, minted: false }
          : { sessionId: randomUUID(), minted: true };
      const connection = new VenueConnection(ws, grant.userUuid, session, this.clock, this.metrics);
      if (sessionParam.kind === 'invalid') {
        this.metrics.refused('sessionId');
        connection.refuse(SandboxCode.InvalidSessionId, sessionParam.reason, VenueCloseCode.PolicyViolation);
        return;
      }
      this.open(connection);
    });
  }

  private open(connection: VenueConnection): void {
    const earlier = this.connections.add(connection);
    this.metrics.connections.inc();
    if (earlier !== undefined) {
      // W19: the older connection of this session is told why, then closed; its subscriptions die with it.
      this.release(earlier);
      const byPolicy = this.config.dialect.replacedClose === 'error-then-1008';
      earlier.refuse(
        SandboxCode.SessionReplaced,
        'A newer connection joined this session',
        byPolicy ? VenueCloseCode.PolicyViolation : VenueCloseCode.SessionReplaced,
        byPolicy ? '' : SandboxCode.SessionReplaced,
      );
    }
    connection.socket.on('message', (data, isBinary) => this.onMessage(connection, data, isBinary));
    connection.socket.on('close', () => this.release(connection));
    connection.socket.on('error', (error) =>
      this.log.warn('socket error', { chanId: connection.chanId, error: error.message }),
    );
    connection.startCadence(this.config.priceIntervalMs, (tick, at) => this.subscriptions.tick(connection, tick, at));
    this.log.debug('connection open', {
      chanId: connection.chanId,
      userUuid: connection.userUuid,
      mintedSession: connection.session.minted,
    });
    this.subscriptions.adopt(connection);
    this.orders.redeliver(connection);
  }

  /** Idempotent: a replaced connection is released first, then its close event arrives. */
  private release(connection: VenueConnection): void {
    if (this.connections.byChan(connection.chanId) !== connection) return;
    this.connections.remove(connection);
    this.metrics.connections.dec();
    connection.dispose();
    this.subscriptions.release(connection);
  }

  private onMessage(connection: VenueConnection, data: WebSocket.RawData, isBinary: boolean): void {
    if (this.connections.byChan(connection.chanId) !== connection) return;
    const frame = isBinary ? { ok: false as const } : parseClientFrame(rawText(data));
    // Fault `late-order-reads`: the venue reads this order (and what follows it on the socket) late, so its pace
    // check (W15) counts it then, not when it arrived.
    const lateMs =
      connection.readingLate || !frame.ok || frame.messageType !== ClientMessageType.Order
        ? undefined
        : this.faults.takeLateOrderRead();
    if (connection.readingLate || lateMs !== undefined) {
      connection.readLate(() => this.read(connection, frame), lateMs);
      return;
    }
    this.read(connection, frame);
  }

  private read(connection: VenueConnection, frame: ReturnType<typeof parseClientFrame>): void {
    if (this.connections.byChan(connection.chanId) !== connection) return;
    this.metrics.frameIn(frame.ok ? frame.messageType : undefined);
    const injected = frame.ok && this.faults.takeRateLimitFrame(frame.messageType);
    if (injected || !this.limits.admitMessage(connection.userUuid)) {
      this.metrics.rateLimit('messages');
      if (
        frame.ok &&
        frame.messageType === ClientMessageType.Subscribe &&
        this.config.dialect.rateLimitedSubscribe === 'ack'
      ) {
        // §2.1 rules 1–2: every subscribe gets exactly one acknowledgement, a refusal never an error frame.
        this.subscriptions.refuseRateLimited(connection, frame.body, frame.text);
        return;
      }
      connection.send({
        messageType: 'error',
        code: SandboxCode.MessageRateLimited,
        message: 'Too many messages: 30 per second per account',
      });
      return;
    }
    if (!frame.ok) {
      connection.send({
        messageType: 'error',
        code: SandboxCode.InvalidMessage,
        message: 'A message must be a JSON object with a string messageType',
      });
      return;
    }
    try {
      this.dispatch(connection, frame.messageType, frame.body, frame.text);
    } catch (error: unknown) {
      // Bad input never takes the venue down; the client hears nothing it could misread as an outcome.
      this.metrics.handlerError(frame.messageType);
      this.log.error('message handling failed', {
        chanId: connection.chanId,
        messageType: frame.messageType,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private dispatch(
    connection: VenueConnection,
    messageType: string,
    body: Record<string, unknown>,
    text: string,
  ): void {
    switch (messageType) {
      case ClientMessageType.Subscribe:
        return this.subscriptions.subscribe(connection, body, text);
      case ClientMessageType.Unsubscribe:
        return this.subscriptions.unsubscribe(connection, body);
      case ClientMessageType.Order:
        return this.orders.place(connection, body);
      case ClientMessageType.OrderUnsubscribe:
        return this.orders.orderUnsubscribe(connection, body);
      case ClientMessageType.AccountGroups:
        return this.accountGroups(connection, body);
      default:
        // §4.2: a messageType outside the protocol is discarded with no reply and no error frame.
        return;
    }
  }

  /** W12 */
  private accountGroups(connection: VenueConnection, body: Record<string, unknown>): void {
    const reply: Omit<AccountGroupsReply, 'chanId' | 'timestamp'> = {
      messageType: 'accountGroups',
      ...(typeof body['requestId'] === 'string' ? { requestId: body['requestId'] } : {}),
      success: true,
      accountGroups: this.directory.accountGroupsOf(connection.userUuid),
    };
    connection.send(reply);
  }
}

/** A tenth of a quote's life, within 100 ms – 30 s: an idle book is empty at most that long after its last expiry. */
function quoteSweepMs(quoteTtlMs: number): number {
  return Math.min(30_000, Math.max(100, Math.floor(quoteTtlMs / 10)));
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = JSON.stringify({ resultCode: 'UNAUTHORISED', message: reason });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

import { BadRequestException, Body, Controller, Get, HttpCode, Inject, Post, Query } from '@nestjs/common';
import { WsFaults } from '../faults/ws-faults.js';
import { ConnectionRegistry } from '../socket/connection-registry.js';
import type { VenueConnection } from '../socket/venue-connection.js';
import { AdminInput } from './admin-input.js';

const ORDER_CODE = /^[A-Z0-9_]{1,40}$/;
const MESSAGE_TYPE = /^[A-Za-z]{1,40}$/;

/**
 * Fault injection on the venue WebSocket and its orders (issue 3). Socket faults act on every live
 * connection, or on those of one client-visible `sessionId` when given.
 */
@Controller('admin/faults/ws')
export class WsFaultsAdminController {
  constructor(
    @Inject(WsFaults) private readonly faults: WsFaults,
    @Inject(ConnectionRegistry) private readonly connections: ConnectionRegistry,
  ) {}

  @Get()
  state(): Record<string, unknown> {
    return { ...this.faults.snapshot(), connections: this.connections.all().length };
  }

  /** The socket vanishes without a close frame (the client sees 1006), as on a network loss. */
  @Post('drop')
  @HttpCode(200)
  drop(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const targets = this.targets(new AdminInput(body, query));
    for (const c of targets) c.socket.terminate();
    return { dropped: targets.length };
  }

  /** Stops sending frames without closing, for `durationMs` or until `resume`. */
  @Post('stall')
  @HttpCode(200)
  stall(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const input = new AdminInput(body, query);
    const targets = this.targets(input);
    const durationMs = input.optionalCount('durationMs');
    for (const c of targets) c.stall(durationMs);
    return { stalled: targets.length };
  }

  @Post('resume')
  @HttpCode(200)
  resume(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const targets = this.targets(new AdminInput(body, query));
    for (const c of targets) c.resume();
    return { resumed: targets.length };
  }

  @Post('order-delay')
  @HttpCode(200)
  orderDelay(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    this.faults.orderReplyDelayMs = new AdminInput(body, query).count('ms');
    return this.faults.snapshot();
  }

  @Post('drop-order-outcomes')
  @HttpCode(200)
  dropOrderOutcomes(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    this.faults.dropOrderOutcomes = new AdminInput(body, query).count('count', 1);
    return this.faults.snapshot();
  }

  @Post('indeterminate')
  @HttpCode(200)
  indeterminate(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    this.faults.indeterminateOrders = new AdminInput(body, query).count('count', 1);
    return this.faults.snapshot();
  }

  /** The next `count` orders that execute first send a provisional FAILED, then their real SUCCESS (K7). */
  @Post('contradict-order')
  @HttpCode(200)
  contradictOrder(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    this.faults.contradictOrders = new AdminInput(body, query).count('count', 1);
    return this.faults.snapshot();
  }

  @Post('fail-subscribe')
  @HttpCode(200)
  failSubscribe(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    this.faults.failSubscribes = new AdminInput(body, query).count('count', 1);
    return this.faults.snapshot();
  }

  /**
   * The next `count` order frames (default 1) are read `ms` late, and the frames behind them on their socket after
   * them: the venue's pace check (W15) counts the order when it reads it, so a client pacing by its own sends
   * sees its next order refused ORDER_RATE_LIMITED.
   */
  @Post('late-order-reads')
  @HttpCode(200)
  lateOrderReads(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const input = new AdminInput(body, query);
    this.faults.lateOrderReadMs = input.count('ms');
    this.faults.lateOrderReads = input.count('count', 1);
    return this.faults.snapshot();
  }

  /** The next `count` orders are refused before execution with `code` (default RFS100019). */
  @Post('reject-quotes')
  @HttpCode(200)
  rejectQuotes(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const input = new AdminInput(body, query);
    const code = input.optionalString('code') ?? 'RFS100019';
    if (!ORDER_CODE.test(code)) throw new BadRequestException('code must be an upper-case code');
    this.faults.rejectQuotes = input.count('count', 1);
    this.faults.rejectQuoteCode = code;
    return this.faults.snapshot();
  }

  /** The next `count` client frames of `messageType` are dropped as over the message budget (W9, W14). */
  @Post('rate-limit-frames')
  @HttpCode(200)
  rateLimitFrames(@Body() body: unknown, @Query() query: Record<string, unknown>) {
    const input = new AdminInput(body, query);
    const messageType = input.optionalString('messageType') ?? '';
    if (!MESSAGE_TYPE.test(messageType)) throw new BadRequestException('messageType must be a client messageType');
    this.faults.rateLimitFrames.set(messageType, input.count('count', 1));
    return this.faults.snapshot();
  }

  @Post('clear')
  @HttpCode(200)
  clear() {
    this.faults.clear();
    for (const c of this.connections.all()) c.resume();
    return this.faults.snapshot();
  }

  private targets(input: AdminInput): VenueConnection[] {
    const sessionId = input.optionalString('sessionId');
    return sessionId === undefined ? this.connections.all() : this.connections.withSessionId(sessionId);
  }
}

/**
 * A venue stand-in for the benchmark: the token endpoint and the WebSocket of the venue, answering
 * subscribes as the sandbox does and replaying sandbox-shaped `pricestream` frames at an exact rate.
 * Why not the sandbox itself: its frames carry a millisecond `timestamp` only, so a hop in microseconds
 * cannot be measured from them, and its cadence is a per-connection timer tick (every stream at once)
 * rather than an even 2,000 updates/s. Here each frame's quoteId is a sequence number whose send time
 * is taken with `performance.now()` in the same process that receives the NATS messages: one clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { RestPath, WS_CLIENT_PATH } from '#venue-api';

export interface BenchStream {
  tag: string;
  instrument: string;
  quantity: string;
  tenor: string;
}

export interface SourceConnection {
  readonly chanId: string;
  readonly socket: WebSocket;
  readonly streams: BenchStream[];
}

export class FrameSource {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  readonly connections: SourceConnection[] = [];
  /** Send time (performance.now(), ms) of frame `seq`, by seq. */
  readonly sentAt: Float64Array;
  private seq = 0;

  constructor(maxFrames: number) {
    this.sentAt = new Float64Array(maxFrames);
    this.http = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.startsWith(RestPath.Token)) {
        req.resume();
        const now = Date.now();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            token: randomUUID(),
            expiresAt: String(now + 30_000),
            resultCode: 'OK',
            timestamp: String(now),
          }),
        );
        return;
      }
      res.writeHead(404).end();
    });
    this.wss = new WebSocketServer({ noServer: true });
    this.http.on('upgrade', (req, socket, head) => {
      if (!req.url?.startsWith(WS_CLIENT_PATH)) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  async listen(): Promise<{ restBaseUrl: string; wsUrl: string }> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    const { port } = this.http.address() as AddressInfo;
    return { restBaseUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}${WS_CLIENT_PATH}` };
  }

  /**
   * Sends `ratePerSecond` frames spread evenly over `connection`'s streams for `durationMs`, catching up
   * on timer lateness so the rate holds. Returns the [first, end) seq range it sent.
   */
  async emit(connection: SourceConnection, ratePerSecond: number, durationMs: number): Promise<[number, number]> {
    const first = this.seq;
    const started = performance.now();
    let sent = 0;
    let next = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const elapsed = performance.now() - started;
        const due = Math.min(
          Math.floor((elapsed * ratePerSecond) / 1000),
          Math.floor((durationMs * ratePerSecond) / 1000),
        );
        while (sent < due && this.seq < this.sentAt.length) {
          const stream = connection.streams[next] as BenchStream;
          next = (next + 1) % connection.streams.length;
          this.send(connection, stream);
          sent += 1;
        }
        if (elapsed >= durationMs || this.seq >= this.sentAt.length) {
          clearInterval(timer);
          resolve();
        }
      }, 2);
    });
    return [first, this.seq];
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private send(connection: SourceConnection, stream: BenchStream): void {
    const seq = this.seq++;
    const cents = 4_200_000 + (seq % 997);
    const bid = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    const offer = `${Math.floor((cents + 25) / 100)}.${String((cents + 25) % 100).padStart(2, '0')}`;
    const frame = JSON.stringify({
      chanId: connection.chanId,
      timestamp: Date.now(),
      messageType: 'pricestream',
      instrument: stream.instrument,
      quoteId: `b${seq}`,
      offer: { price: offer, quantity: stream.quantity, quoteAmount: '1000.00' },
      bid: { price: bid, quantity: stream.quantity, quoteAmount: '1000.00' },
      tenor: stream.tenor,
      settleDate: '20261123',
      tag: stream.tag,
    });
    this.sentAt[seq] = performance.now();
    connection.socket.send(frame);
  }

  private accept(socket: WebSocket): void {
    const connection: SourceConnection = { chanId: randomUUID(), socket, streams: [] };
    this.connections.push(connection);
    socket.on('message', (data) => {
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      const reply = (body: Record<string, unknown>) =>
        socket.send(JSON.stringify({ chanId: connection.chanId, timestamp: Date.now(), ...body }));
      if (frame['messageType'] === 'subscribe') {
        const stream: BenchStream = {
          tag: String(frame['tag']),
          instrument: String(frame['instrument']),
          quantity: String(frame['quantity']),
          tenor: String(frame['tenor']),
        };
        connection.streams.push(stream);
        reply({
          messageType: 'subscribe',
          success: true,
          message: 'Subscribed',
          subscriptionId: randomUUID(),
          instrument: stream.instrument,
          quantity: stream.quantity,
          tenor: stream.tenor,
          settleDate: '20261123',
          tag: stream.tag,
        });
      } else if (frame['messageType'] === 'accountGroups') {
        reply({ messageType: 'accountGroups', requestId: frame['requestId'], success: true, accountGroups: [] });
      }
    });
    socket.on('close', () => this.connections.splice(this.connections.indexOf(connection), 1));
  }
}

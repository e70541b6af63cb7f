/**
 * The venue stand-in of the order benchmark: the token endpoint, an empty trade list and order state (REST),
 * and a WebSocket that streams prices on every subscription (a new quoteId every `priceIntervalMs`) and
 * records when each order frame arrives (`performance.now()` in the bench process, the clock the algo's
 * send times are taken with). Orders are answered PENDING, then SUCCESS with the execution fields.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { RestPath, WS_CLIENT_PATH } from '#venue-api';

export class OrderVenue {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Arrival time of each order frame by clientRequestId, and the arrival order. */
  readonly arrivals = new Map<string, number>();
  readonly arrivalOrder: string[] = [];
  duplicates = 0;
  private quoteSeq = 0;

  constructor(private readonly priceIntervalMs: number) {
    this.http = createServer((req, res) => {
      req.resume();
      const now = Date.now();
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith(RestPath.Token)) {
        res.end(
          JSON.stringify({
            token: randomUUID(),
            expiresAt: String(now + 30_000),
            resultCode: 'OK',
            timestamp: String(now),
          }),
        );
      } else if (req.url?.startsWith(RestPath.Trades)) {
        res.end(JSON.stringify({ data: [], total: 0 }));
      } else {
        res.end('[]');
      }
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

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const chanId = randomUUID();
    this.sockets.add(socket);
    const send = (body: Record<string, unknown>): void => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ chanId, timestamp: Date.now(), ...body }));
    };
    socket.on('message', (data) => {
      const arrived = performance.now();
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      const type = frame['messageType'];
      if (type === 'order') {
        const id = String(frame['clientRequestId']);
        if (this.arrivals.has(id)) this.duplicates += 1;
        else {
          this.arrivals.set(id, arrived);
          this.arrivalOrder.push(id);
        }
        if (frame['quoteId'] === undefined) return; // the bare relay's frame: nothing to answer
        const reply = {
          messageType: 'order',
          clientRequestId: id,
          transactionId: randomUUID(),
          quoteId: frame['quoteId'],
          side: frame['side'],
          subscriptionStatus: 'NOT_SUBSCRIBED',
          sessionId: null,
          code: '',
          message: '',
        };
        send({ ...reply, orderStatus: 'PENDING' });
        setTimeout(
          () =>
            send({
              ...reply,
              orderStatus: 'SUCCESS',
              instrument: 'BTC.USD',
              price: '42000.25',
              quantity: '0.5',
              quoteAmount: '21000.13',
              currency: 'BTC',
              settleDate: '20261127',
              tradeRef: `T${id}`,
            }),
          5,
        );
      } else if (type === 'subscribe') {
        const tag = String(frame['tag'] ?? '');
        const quantity = String(frame['quantity']);
        send({
          messageType: 'subscribe',
          success: true,
          message: 'Subscribed',
          subscriptionId: randomUUID(),
          instrument: frame['instrument'],
          quantity,
          tenor: frame['tenor'],
          settleDate: '',
          tag,
          code: '',
        });
        const timer = setInterval(() => {
          const seq = (this.quoteSeq += 1);
          send({
            messageType: 'pricestream',
            instrument: frame['instrument'],
            quoteId: `q${seq}`,
            offer: { price: '42000.25', quantity, quoteAmount: '21000.13' },
            bid: { price: '41999.75', quantity, quoteAmount: '20999.88' },
            tenor: frame['tenor'],
            settleDate: '20261127',
            tag,
          });
        }, this.priceIntervalMs);
        this.timers.add(timer);
      } else if (type === 'accountGroups') {
        send({ messageType: 'accountGroups', requestId: frame['requestId'], success: true, accountGroups: [] });
      }
    });
    socket.on('close', () => this.sockets.delete(socket));
  }
}

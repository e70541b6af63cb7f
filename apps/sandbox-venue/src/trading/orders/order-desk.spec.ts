import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Decimal } from '../../money.js';
import { Registry } from 'prom-client';
import WebSocket, { WebSocketServer } from 'ws';
import type { BookedTrade, RfsTradeInput, TradeBooking } from '../../ports.js';
import { instrumentInfo } from '../../reference/instruments.js';
import { WsFaults } from '../faults/ws-faults.js';
import { QuoteBook } from '../quotes/quote-book.js';
import { AccountLimits } from '../socket/account-limits.js';
import { ConnectionRegistry } from '../socket/connection-registry.js';
import { VenueConnection } from '../socket/venue-connection.js';
import { TradingMetrics } from '../trading-metrics.js';
import { EXECUTION_REJECTED, OrderDesk } from './order-desk.js';
import { OrderJournal } from './order-journal.js';

/** The back office's booking, standing in for the real ledger so a refusal can be injected. */
class RecordingBooking implements TradeBooking {
  readonly booked: RfsTradeInput[] = [];
  refuse = false;
  bookRfsTrade(input: RfsTradeInput): BookedTrade {
    if (this.refuse) throw new Error('Insufficient funds');
    this.booked.push(input);
    return { tradeUuid: `t${this.booked.length}`, tradeRef: `REF-${this.booked.length}` };
  }
}

let now = 1_000_000;
const clock = { now: (): number => now };

let server: WebSocketServer;
let client: WebSocket;
let received: Array<Record<string, unknown>>;
let connection: VenueConnection;
let desk: OrderDesk;
let quotes: QuoteBook;
let journal: OrderJournal;
let booking: RecordingBooking;
let faults: WsFaults;

beforeEach(async () => {
  now = 1_000_000;
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  received = [];
  client.on('message', (data) => received.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const [socket] = (await accepted) as [WebSocket];
  await once(client, 'open');
  const metrics = new TradingMetrics(new Registry());
  const connections = new ConnectionRegistry();
  connection = new VenueConnection(socket, 'alice', { sessionId: 's1', minted: false }, clock, metrics);
  connections.add(connection);
  quotes = new QuoteBook(600_000);
  journal = new OrderJournal(clock, 86_400_000);
  booking = new RecordingBooking();
  faults = new WsFaults();
  desk = new OrderDesk(journal, quotes, booking, connections, new AccountLimits(30, 0), clock, faults, metrics, 0);
});

afterEach(async () => {
  desk.close();
  client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function issueQuote(): string {
  const info = instrumentInfo('ETH.USD');
  if (info === undefined) throw new Error('ETH.USD');
  const terms = {
    userUuid: 'alice',
    accountGroupUuid: 'g1',
    info,
    currency: 'ETH',
    quantity: new Decimal('2'),
    tenor: 'T',
  };
  return quotes.issue(clock.now(), terms, new Decimal('3000'), '20260107').quoteId;
}

async function frames(count: number): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 3000;
  while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return received;
}

describe('order desk', () => {
  it('books at the quoted side and records SUCCESS after PENDING', async () => {
    const quoteId = issueQuote();
    desk.place(connection, { messageType: 'order', quoteId, side: 'SELL', clientRequestId: 'c1' });
    const [pending, done] = await frames(2);
    expect(pending).toMatchObject({ orderStatus: 'PENDING', clientRequestId: 'c1' });
    expect(done).toMatchObject({ orderStatus: 'SUCCESS', tradeRef: 'REF-1', quantity: '2', currency: 'ETH' });
    expect(booking.booked[0]).toMatchObject({
      side: 'SELL',
      baseAmount: '2',
      accountGroupUuid: 'g1',
      settleDate: '20260107',
    });
    expect(journal.findByClientRequestId('alice', 'c1')[0]).toMatchObject({ orderStatus: 'SUCCESS' });
  });

  it('a booking the back office refuses fails EXECUTION_REJECTED and frees the quote again', async () => {
    const quoteId = issueQuote();
    booking.refuse = true;
    desk.place(connection, { messageType: 'order', quoteId, side: 'BUY', clientRequestId: 'c2' });
    const [, failed] = await frames(2);
    expect(failed).toMatchObject({ orderStatus: 'FAILED', code: EXECUTION_REJECTED });
    booking.refuse = false;
    desk.place(connection, { messageType: 'order', quoteId, side: 'BUY', clientRequestId: 'c3' });
    const all = await frames(4);
    expect(all[3]).toMatchObject({ clientRequestId: 'c3', orderStatus: 'SUCCESS' });
  });

  it('a dropped outcome is recorded but not sent; an indeterminate one still books the trade', async () => {
    faults.dropOrderOutcomes = 1;
    desk.place(connection, { messageType: 'order', quoteId: issueQuote(), side: 'BUY', clientRequestId: 'd1' });
    await frames(1);
    const deadline = Date.now() + 3000;
    while (journal.findByClientRequestId('alice', 'd1')[0]?.orderStatus === 'PENDING' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(journal.findByClientRequestId('alice', 'd1')[0]?.orderStatus).toBe('SUCCESS');
    faults.indeterminateOrders = 1;
    desk.place(connection, { messageType: 'order', quoteId: issueQuote(), side: 'BUY', clientRequestId: 'i1' });
    const all = await frames(3);
    expect(all.filter((f) => f['clientRequestId'] === 'd1')).toHaveLength(1);
    expect(all[2]).toMatchObject({ clientRequestId: 'i1', orderStatus: 'INDETERMINATE' });
    expect(booking.booked).toHaveLength(2);
  });

  it('keeps records 24 h and answers newest first', () => {
    desk.place(connection, { messageType: 'order', quoteId: 'x', side: 'BUY', clientRequestId: 'r1' });
    desk.place(connection, { messageType: 'order', quoteId: 'y', side: 'BUY', clientRequestId: 'r1' });
    const records = journal.findByClientRequestId('alice', 'r1');
    expect(records).toHaveLength(2);
    expect(records.map((r) => r.transactionId)).toEqual(
      journal.entriesOf('alice', 'r1').map((e) => e.record.transactionId),
    );
    expect(journal.findByClientRequestId('bob', 'r1')).toHaveLength(0);
    now += 86_400_000 - 1;
    expect(journal.findByClientRequestId('alice', 'r1')).toHaveLength(2);
    now += 2;
    expect(journal.findByClientRequestId('alice', 'r1')).toHaveLength(0);
  });
});

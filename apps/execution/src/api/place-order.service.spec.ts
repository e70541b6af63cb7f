import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TimeoutError } from '@nats-io/transport-node';
import { BusConnection, BusKv, BusMetrics } from '#bus';
import { ExecutionErrorCode, type PlaceOrderReply } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock, startNatsServer, type NatsServerHandle } from '#testing';
import type { ExecutionMetrics } from '../metrics/execution-metrics.js';
import type { OrderDesk } from '../orders/order-desk.js';
import { OrderJournal, type KeyEntry } from '../orders/order-journal.js';
import type { QuoteBook } from '../quotes/quote-book.js';
import type { PriceStreams } from '../quotes/price-streams.js';
import type { QuoteClaims } from '../quotes/quote-claims.js';
import type { RiskGate } from '../risk/risk-gate.js';
import { OrderQueue, QUEUE_MARGIN_MS } from './order-queue.js';
import { PlaceOrderService, type PlaceOrderDeps } from './place-order.service.js';

const silent = new JsonLogger('place-test', 'test', 'error', { write: () => undefined });

/** The service on a real journal (JetStream KV); everything around the journal says yes. */
function service(
  journal: OrderJournal,
  clock: FakeClock,
  rejected: string[],
  queue: PlaceOrderDeps['queue'] = { admit: async () => ({ ok: true, result: 'passed', counted: () => undefined }) },
  risk: Partial<RiskGate> = {},
): PlaceOrderService {
  const metrics = {
    rejected: (code: string) => rejected.push(code),
    duplicates: { inc: () => undefined },
    queueEstimates: { inc: () => undefined },
  } as unknown as ExecutionMetrics;
  return new PlaceOrderService({
    instanceId: 'i1',
    journal,
    desk: { reserve: () => undefined, release: () => undefined, place: () => undefined } as unknown as OrderDesk,
    book: { quote: () => undefined, expiredAt: () => undefined } as unknown as QuoteBook,
    streams: { markUsed: () => undefined } as unknown as PriceStreams,
    claims: { claim: async () => ({ ok: true }), release: async () => undefined } as unknown as QuoteClaims,
    risk: { admit: async () => ({ ok: true }), record: () => undefined, ...risk } as unknown as RiskGate,
    gate: { refusal: () => undefined },
    queue,
    metrics,
    clock,
    logger: silent,
    quoteLifeMs: 2_000,
    sendDeadlineMs: 5_000,
  });
}

function request(key: string, extra: Record<string, string | number> = {}): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      idempotencyKey: key,
      strategyId: 's1',
      accountGroup: 'g1',
      side: 'BUY',
      quoteId: 'q-1',
      ...extra,
    }),
  );
}

describe('place-order service: an idempotency key contended by another request', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let kv: BusKv;

  beforeAll(async () => {
    server = await startNatsServer();
    connection = await BusConnection.open(
      { servers: server.url, name: 'place-test' },
      new BusMetrics(new MetricsRegistry('place-test', { defaultMetrics: false })),
      new HealthRegistry(500),
      silent,
    );
    kv = new BusKv(connection);
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('the key won by a request that then gives it back (it lost its quote): this request is decided again, not refused as internal', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_RACE'));
    const clock = new FakeClock(1_700_000_000_000);
    const rejected: string[] = [];
    const winner: KeyEntry = {
      orderId: 'other',
      clientRequestId: 'c-other',
      payloadHash: 'h',
      acceptedAt: clock.now(),
    };
    const claimKey = journal.claimKey.bind(journal);
    let raced = false;
    // The other request claims the key just before this one, and gives it back right after this one lost.
    journal.claimKey = async (strategyId, key, entry, fromRevision) => {
      if (raced) return claimKey(strategyId, key, entry, fromRevision);
      raced = true;
      await claimKey(strategyId, key, winner);
      const lost = await claimKey(strategyId, key, entry, fromRevision);
      await journal.releaseKey(strategyId, key, winner.orderId);
      return lost;
    };

    const reply: PlaceOrderReply = await service(journal, clock, rejected).place(request('k-race'));

    expect(raced).toBe(true);
    expect(reply.ok).toBe(true);
    expect(rejected).toEqual([]);
    if (!reply.ok) return;
    expect(reply.duplicate).toBe(false);
    // the order is whole: the key names it, its record and its open mark are stored
    expect((await journal.keyEntry('s1', 'k-race'))?.orderId).toBe(reply.orderId);
    expect((await journal.read(reply.orderId))?.record.state).toBe('INTENT_RECORDED');
    expect(await journal.isOpen(reply.orderId)).toBe(true);
  });

  it('a retry with a decimal written with other trailing zeros is the same order (0.010 is 0.01)', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_ZEROS'));
    const place = service(journal, new FakeClock(1_700_000_000_000), []);
    const first = await place.place(request('k-zeros', { worstPrice: '64000.50' }));
    const again = await place.place(request('k-zeros', { worstPrice: '64000.5' }));
    const other = await place.place(request('k-zeros', { worstPrice: '64000.51' }));
    expect(first).toMatchObject({ ok: true, duplicate: false });
    expect(again).toMatchObject({ ok: true, duplicate: true, orderId: first.ok ? first.orderId : '' });
    expect(other).toMatchObject({ ok: false, error: { code: ExecutionErrorCode.IdempotencyKeyReused } });
  });

  it('worstPrice is kept plain (outside tester: 070000 was stored and shown as written); 070000, 7E+4 and 70000 are one payload', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_PLAIN'));
    const place = service(journal, new FakeClock(1_700_000_000_000), []);
    const first = await place.place(request('k-plain', { worstPrice: '070000' }));
    expect(first).toMatchObject({ ok: true, duplicate: false, order: { worstPrice: '70000' } });
    if (!first.ok) return;
    expect((await journal.read(first.orderId))?.record.worstPrice).toBe('70000');
    for (const worstPrice of ['70000', '7E+4', '70000.000'])
      expect(await place.place(request('k-plain', { worstPrice }))).toMatchObject({
        ok: true,
        duplicate: true,
        orderId: first.orderId,
        order: { worstPrice: '70000' },
      });
  });

  it('NATS not answering mid-request: EXECUTION_JOURNAL_UNAVAILABLE, ask again with the key — not INTERNAL (outside tester)', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_NATS_AWAY'));
    const rejected: string[] = [];
    journal.keyClaim = async () => {
      throw new TimeoutError(); // what the client throws for a KV read left unanswered
    };
    const reply = await service(journal, new FakeClock(1_700_000_000_000), rejected).place(request('k-away'));
    expect(reply).toMatchObject({ ok: false, error: { code: ExecutionErrorCode.JournalUnavailable } });
    if (!reply.ok) expect(reply.error.message).toMatch(/same idempotency key/);
    expect(rejected).toEqual([ExecutionErrorCode.JournalUnavailable]);
  });

  it('a key another request holds and keeps: answered as that order being placed (retry later), never internal', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_HELD'));
    const clock = new FakeClock(1_700_000_000_000);
    const rejected: string[] = [];
    const claimKey = journal.claimKey.bind(journal);
    journal.claimKey = async (strategyId, key, entry, fromRevision) => {
      // the other request's claim lands first; its payload is this one's (a retry sent twice at once)
      await claimKey(strategyId, key, { ...entry, orderId: 'other', clientRequestId: 'c-other' });
      return claimKey(strategyId, key, entry, fromRevision);
    };

    const reply = await service(journal, clock, rejected).place(request('k-held'));

    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe(ExecutionErrorCode.OrderBeingPlaced);
    expect(rejected).toEqual([ExecutionErrorCode.OrderBeingPlaced]);
  });

  it("the algo's own sendBy: passed → refused, nothing stored, the key stays free; ahead → kept on the order; a retry with another sendBy is the same order", async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_SEND_BY'));
    const clock = new FakeClock(1_700_000_000_000);
    const rejected: string[] = [];
    const place = service(journal, clock, rejected);

    const late = await place.place(request('k-send-by', { sendBy: clock.now() }));
    expect(late).toMatchObject({ ok: false, error: { code: ExecutionErrorCode.SendByPassed } });
    expect(rejected).toEqual([ExecutionErrorCode.SendByPassed]);
    expect(await journal.keyEntry('s1', 'k-send-by')).toBeUndefined();

    const sendBy = clock.now() + 3_000;
    const placed = await place.place(request('k-send-by', { sendBy }));
    expect(placed).toMatchObject({ ok: true, duplicate: false, order: { sendBy } });
    if (!placed.ok) return;
    expect((await journal.read(placed.orderId))?.record.sendBy).toBe(sendBy);
    // not part of the order: a retry (even after the first sendBy passed) answers the order as it stands
    clock.advance(5_000);
    const retry = await place.place(request('k-send-by', { sendBy: clock.now() - 1 }));
    expect(retry).toMatchObject({ ok: true, duplicate: true, orderId: placed.orderId, order: { sendBy } });
  });

  it('an order that could not leave before its deadline behind those queued: ORDER_QUEUE_FULL with the estimate, nothing stored, its risk given back', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_QUEUE_FULL'));
    const clock = new FakeClock(1_700_000_000_000);
    const rejected: string[] = [];
    let queued = 6;
    const queue = new OrderQueue(
      {
        paceMs: () => 700,
        commandsQueued: async () => queued,
        commandsUnpublished: () => 0,
        commandsPublished: () => 0,
      },
      clock,
      QUEUE_MARGIN_MS,
      0, // every order reads the stream (the fake clock stands still)
    );
    const notExecuted: unknown[] = [];
    const place = service(journal, clock, rejected, queue, { record: (fact: unknown) => void notExecuted.push(fact) });

    // sendDeadlineMs 5 s, the quote's life 2 s: its command's sendBy is 2 s away; 7 × 0.7 s + 0.5 s will not do
    const full = await place.place(request('k-queue'));
    expect(full).toMatchObject({
      ok: false,
      error: {
        code: ExecutionErrorCode.OrderQueueFull,
        values: { ordersAhead: '6', paceMs: '700', estimatedWaitMs: '4900', timeLeftMs: '2000' },
      },
    });
    expect(rejected).toEqual([ExecutionErrorCode.OrderQueueFull]);
    expect(await journal.keyEntry('s1', 'k-queue')).toBeUndefined();
    expect(notExecuted).toEqual([expect.objectContaining({ kind: 'not-executed' })]);

    queued = 0; // drained: the same key passes (none ahead)
    expect(await place.place(request('k-queue'))).toMatchObject({ ok: true, duplicate: false });
  });

  it('another payload on a key whose order was never opened: answered as being placed, not as reused (outside tester)', async () => {
    const journal = new OrderJournal(await kv.bucket('TEST_PLACE_NEVER_OPENED'));
    const clock = new FakeClock(1_700_000_000_000);
    const place = service(journal, clock, []);
    // a request claimed the key and died before its intent (kill -9): no record, no open mark
    await journal.claimKey('s1', 'k-crashed', {
      orderId: 'never-opened',
      clientRequestId: 'c-never',
      payloadHash: 'another payload',
      acceptedAt: clock.now(),
    });
    const early = await place.place(request('k-crashed'));
    expect(early).toMatchObject({ ok: false, error: { code: ExecutionErrorCode.OrderBeingPlaced } });
    expect(JSON.stringify(early)).not.toContain('never-opened');
    // once it can no longer be sent, the key passes to this request's order
    clock.advance(5_000 + 5_001);
    const placed = await place.place(request('k-crashed'));
    expect(placed).toMatchObject({ ok: true, duplicate: false });
    // and from then on another payload is refused naming the order that exists
    const other = await place.place(request('k-crashed', { worstPrice: '1' }));
    expect(other).toMatchObject({
      ok: false,
      error: {
        code: ExecutionErrorCode.IdempotencyKeyReused,
        values: { orderId: placed.ok ? placed.orderId : '' },
      },
    });
  });
});

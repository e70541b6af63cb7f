/**
 * The venue REST client against the sandbox venue with operator actions and injected faults: trades booked
 * by the desk (pagination, lossless amounts), outcome-unknown withdrawals, throttling, stale nonces, the
 * participants service down, and a venue clock outside the tonce window.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PersistentNonceSource,
  TonceSource,
  VenueAuthError,
  VenueOutcomeUnknownError,
  VenueRestClient,
  type AntiReplaySource,
  type VenueRestClientConfig,
} from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { admin, deskTrade } from './sandbox-admin.js';

/** An injected fault: the first value handed out is a replay of an old nonce (e.g. a restored nonce file). */
class ReplayOnceSource implements AntiReplaySource {
  private replayed = false;
  constructor(private readonly inner: AntiReplaySource) {}
  async next() {
    const value = await this.inner.next();
    if (this.replayed) return value;
    this.replayed = true;
    return { field: value.field, value: value.value - 1_000_000_000n };
  }
}

describe('VenueRestClient against the sandbox with operator actions and faults', () => {
  let venue: RunningSandbox;
  let nonceDirectory: string;
  const events: string[] = [];

  function client(overrides: Partial<VenueRestClientConfig> = {}): VenueRestClient {
    return new VenueRestClient({
      baseUrl: venue.restBaseUrl,
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      antiReplay: new TonceSource(),
      events: {
        onThrottled: (operation) => events.push(`throttled:${operation}`),
        onRetry: (operation, reason) => events.push(`retry:${operation}:${reason}`),
      },
      ...overrides,
    });
  }

  async function nonceSource(): Promise<PersistentNonceSource> {
    return new PersistentNonceSource({ directory: nonceDirectory, apiKey: venue.credentials.primary.apiKey });
  }

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    nonceDirectory = await mkdtemp(join(tmpdir(), 'rest-client-faults-'));
  });
  afterEach(async () => {
    events.length = 0;
    await admin(venue, '/faults/rest', undefined, 'DELETE');
  });
  afterAll(async () => {
    await venue.close();
    await rm(nonceDirectory, { recursive: true, force: true });
  });

  it('§4.5: pages through desk-booked trades until a short page, amounts read exactly', async () => {
    const booked: string[] = [];
    for (let i = 0; i < 5; i++) {
      const trade = (await admin(venue, '/trades/otc', deskTrade(venue, `desk-${i}`))) as { tradeUuid: string };
      booked.push(trade.tradeUuid);
    }
    const api = client();
    const all = await api.listAllTrades({ tradeClass: 'OTC' }, 2);
    expect(all.map((trade) => trade.uuid).sort()).toEqual([...booked].sort());
    const first = await api.listTrades({ clientRef: 'desk-3' });
    expect(first.total).toBe(1);
    expect(first.data[0]).toMatchObject({ tradeClass: 'OTC', tradeSide: 'BUY', state: 'PENDING_SETTLEMENT' });
    const amounts = [first.data[0]?.settlementAmount?.amount, first.data[0]?.tradedAmount?.amount].sort();
    expect(amounts).toEqual(['0.00000001', '0.01'].sort());

    const transactions = await api.listTransactions({ max: 200 });
    const legs = transactions.data.filter(
      (leg) => leg.tradeId === booked[3] || leg.tradeRef === first.data[0]?.tradeRef,
    );
    expect(legs.length).toBeGreaterThanOrEqual(2);
    expect(legs.map((leg) => leg.transactionClass)).toEqual(legs.map(() => 'OTCTRADE'));
  });

  it('§7.2: a 500 after the venue created the withdrawal is outcome-unknown; the list shows the truth', async () => {
    await admin(venue, '/faults/rest', { status: 500, path: '/api/3/withdrawal/fiat', applyThenFail: true });
    const api = client({ antiReplay: await nonceSource() });
    const before = (await api.listFiatWithdrawals()).length;
    const error = await api
      .submitFiatWithdrawal({
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '77.70',
        bankAccountUuid: venue.seed.bankUsdOk,
        clientComment: 'outcome-unknown',
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueOutcomeUnknownError);
    expect(events).toEqual([]); // never retried
    const after = await api.listFiatWithdrawals();
    expect(after).toHaveLength(before + 1);
    expect(after.find((row) => row.clientComment === 'outcome-unknown')).toMatchObject({ amount: '77.70' });
  });

  it('§8: a 429 pauses the client and the request succeeds on retry with a fresh tonce', async () => {
    await admin(venue, '/faults/rest', { status: 429, path: '/api/3/pairs', count: 1 });
    const pairs = await client().listPairs();
    expect(pairs.length).toBeGreaterThan(0);
    expect(events).toEqual(['throttled:listPairs', 'retry:listPairs:throttled']);
  });

  it('§5.5: a withdrawal 401 (auth or throttling) in nonce mode is retried once and succeeds', async () => {
    await admin(venue, '/faults/rest', { status: 401, path: '/api/3/withdrawal/crypto/list', count: 1 });
    const api = client({ antiReplay: await nonceSource() });
    await expect(api.listCryptoWithdrawals()).resolves.toEqual(expect.any(Array));
    expect(events).toEqual(['retry:listCryptoWithdrawals:auth-failure']);
  });

  it('§5.4: a replayed nonce is an auth failure; the client retries once with a fresh one', async () => {
    await client({ antiReplay: await nonceSource() }).getOrderState('warm-up'); // venue holds a high-water mark
    expect(events).toEqual([]);
    const replaying = client({ antiReplay: new ReplayOnceSource(await nonceSource()) });
    await expect(replaying.getOrderState('after-replay')).resolves.toEqual([]);
    expect(events).toEqual(['retry:getOrderState:auth-failure']);
  });

  it('§2.7: with the participants service down, withdrawal rows keep uuids and drop names', async () => {
    const api = client({ antiReplay: await nonceSource() });
    await api.submitFiatWithdrawal({
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'EUR',
      amount: '5',
      bankAccountUuid: venue.seed.bankEurOk,
    });
    await admin(venue, '/faults/participants', { available: false });
    try {
      const rows = await api.listFiatWithdrawals();
      const eurRow = rows.find((row) => row.ccy === 'EUR');
      expect(eurRow?.bankAccount).toEqual({ uuid: venue.seed.bankEurOk });
    } finally {
      await admin(venue, '/faults/participants', { available: true });
    }
  });

  it('§4.1: a venue clock five minutes ahead refuses tonces (auth error after its one retry: the clock stays wrong)', async () => {
    await admin(venue, '/clock', { skewMs: 5 * 60_000 });
    try {
      const error = await client()
        .getBalances()
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(VenueAuthError);
      expect(events).toEqual(['retry:getBalances:auth-failure']);
    } finally {
      await admin(venue, '/clock', { skewMs: 0 });
    }
  });
});

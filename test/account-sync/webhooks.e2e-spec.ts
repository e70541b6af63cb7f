/**
 * The webhook receiver against the sandbox venue's real webhooks: duplicate, out-of-order and stale
 * notifications yield one final state each; an unlisted source is refused once a refresh still excludes it, is
 * answered 503 while ips.json announces a change, and is accepted once ips.json lists it; malformed bodies are
 * counted 400s.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '#testing';
import {
  admin,
  metricValue,
  request,
  startAccountSyncStack,
  transactionEvents,
  transactionSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

interface Leg {
  uuid: string;
}

describe('account-sync webhook receiver (sandbox venue, real nats-server)', () => {
  let stack: AccountSyncStack;
  const group = () => stack.venue.seed.defaultGroupUuid;

  async function deposit(amount = '250.25'): Promise<string> {
    const leg = await admin<Leg>(stack.venue, '/deposits', { accountGroupUuid: group(), ccy: 'USD', amount });
    return leg.uuid;
  }

  async function pendingDeliveries(): Promise<number> {
    return ((await (await fetch(`${stack.venue.adminUrl}/webhooks`)).json()) as { pending: number }).pending;
  }

  async function states(uuid: string): Promise<string[]> {
    return (await transactionEvents(stack, uuid)).map((event) => event.state);
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack();
    await waitFor(async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) >= 1, 'ips.json loaded');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('stores a deposit leg PENDING then PROCESSED, each once, amounts exact; duplicates and stale resends change nothing', async () => {
    const uuid = await deposit('250.25');
    await waitFor(async () => (await states(uuid)).includes('PENDING'), 'PENDING stored');
    await admin(stack.venue, `/transactions/${uuid}/process`);
    await waitFor(async () => (await states(uuid)).includes('PROCESSED'), 'PROCESSED stored');
    const duplicatesBefore = await metricValue(stack, 'account_sync_webhooks_total', { result: 'duplicate' });
    const staleBefore = await metricValue(stack, 'account_sync_webhooks_total', { result: 'stale' });
    await admin(stack.venue, '/webhooks/duplicate', { transactionUuid: uuid });
    await admin(stack.venue, '/webhooks/stale', { transactionUuid: uuid });
    await waitFor(
      async () =>
        (await metricValue(stack, 'account_sync_webhooks_total', { result: 'duplicate' })) > duplicatesBefore &&
        (await metricValue(stack, 'account_sync_webhooks_total', { result: 'stale' })) > staleBefore,
      'duplicate and stale resends answered',
    );
    const events = await transactionEvents(stack, uuid);
    expect(events.map((e) => [e.state, e.previousState])).toEqual([
      ['PENDING', null],
      ['PROCESSED', 'PENDING'],
    ]);
    expect(events[1]?.leg.amount).toBe('250.25');
    expect(events[1]?.outcome).toBe('completed');
    const reply = await request<{ ok: boolean; transaction?: { state: string } }>(stack, transactionSubjects.get, {
      uuid,
    });
    expect(reply).toMatchObject({ ok: true, transaction: { state: 'PROCESSED' } });
  });

  it('swapped notifications (PROCESSED before PENDING) yield the one final state', async () => {
    await admin(stack.venue, '/webhooks/swap-next');
    const uuid = await deposit('10.00');
    await admin(stack.venue, `/transactions/${uuid}/process`);
    await waitFor(async () => (await states(uuid)).includes('PROCESSED'), 'PROCESSED stored');
    // the held PENDING goes out after PROCESSED and is answered as stale
    await waitFor(async () => (await pendingDeliveries()) === 0, 'every notification delivered');
    expect(await states(uuid)).toEqual(['PROCESSED']);
  });

  it('a reversed leg is published as the failure it is', async () => {
    const uuid = await deposit('5.00');
    await waitFor(async () => (await states(uuid)).includes('PENDING'), 'PENDING stored');
    await admin(stack.venue, `/transactions/${uuid}/reverse`);
    await waitFor(async () => (await states(uuid)).includes('REVERSED'), 'REVERSED stored');
    const events = await transactionEvents(stack, uuid);
    expect(events.at(-1)).toMatchObject({ state: 'REVERSED', outcome: 'failed', failed: true });
  });

  it('refuses a source not in ips.json once a refresh still excludes it (403, counted), accepts it once listed', async () => {
    const refusedBefore = await metricValue(stack, 'account_sync_webhooks_total', { result: 'refused_source' });
    const version = await metricValue(stack, 'account_sync_webhook_ips_version');
    await admin(stack.venue, '/webhooks/ips', { ipv4_cidrs: ['203.0.113.0/24'] });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) > version,
      'new ips.json version loaded',
    );
    const refused = await deposit('1.00');
    await waitFor(
      async () =>
        (await metricValue(stack, 'account_sync_webhooks_total', { result: 'refused_source' })) > refusedBefore,
      'webhook refused',
    );
    const reloaded = await metricValue(stack, 'account_sync_webhook_ips_version');
    await admin(stack.venue, '/webhooks/ips', { ipv4_cidrs: ['203.0.113.0/24', '127.0.0.1/32'] });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) > reloaded,
      'ips.json with loopback loaded',
    );
    const accepted = await deposit('2.00');
    await waitFor(async () => (await states(accepted)).includes('PENDING'), 'accepted after the list changed');
    const events = await transactionEvents(stack, accepted);
    expect(events[0]?.source).toBe('webhook');
    // the refused notification is not stored from the webhook (4xx is never retried by the venue)
    expect((await transactionEvents(stack, refused)).filter((e) => e.source === 'webhook')).toEqual([]);
  });

  it('answers an unlisted source 503 (retried), never 403, while ips.json announces a change', async () => {
    const count = (result: string) => metricValue(stack, 'account_sync_webhooks_total', { result });
    const version = await metricValue(stack, 'account_sync_webhook_ips_version');
    await admin(stack.venue, '/webhooks/ips', {
      ipv4_cidrs: ['203.0.113.0/24'],
      change_notice: { message: 'moving to a new range', effective_date: '2027-01-01' },
    });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) > version,
      'ips.json with a change notice loaded',
    );
    expect(await metricValue(stack, 'account_sync_webhook_ips_change_notice')).toBe(1);
    const [refusedBefore, unconfirmedBefore] = [await count('refused_source'), await count('unconfirmed_source')];
    await deposit('3.00');
    // the sandbox's whole (scaled) backoff schedule runs out on 503s: every delivery was retried, none refused
    await waitFor(
      async () => (await count('unconfirmed_source')) > unconfirmedBefore && (await pendingDeliveries()) === 0,
      'deliveries answered 503 until the sandbox gave up',
    );
    expect(await count('refused_source')).toBe(refusedBefore);
    const noticed = await metricValue(stack, 'account_sync_webhook_ips_version');
    await admin(stack.venue, '/webhooks/ips', { ipv4_cidrs: ['127.0.0.1/32'] });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) > noticed,
      'list restored',
    );
  });

  it.each([
    ['a body without uuid: 400 (it names no transaction)', '{"transactionState":"PENDING","amount":1}', 400, 'invalid'],
    [
      'a uuid the ledger cannot hold (a state outside §3.3): 503, the venue retries (a 4xx would lose it)',
      '{"uuid":"x-unusable","transactionState":"SOMETHING"}',
      503,
      'unusable',
    ],
  ])('answers %s, counted, without storing anything', async (_case, body, status, result) => {
    const before = await metricValue(stack, 'account_sync_webhooks_total', { result });
    const response = await fetch(stack.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(status);
    expect(await metricValue(stack, 'account_sync_webhooks_total', { result })).toBe(before + 1);
  });

  it.each([
    ['empty', ''],
    ['with a NUL', 'U\u0000SD'],
    ['with an RTL override', '\u202eDSU'],
    ['4,096 characters long', 'Q'.repeat(4_096)],
  ])(
    'answers a leg whose ccy is %s 503 unusable (retried), counted, nothing stored (tester t2 F5)',
    async (_case, ccy) => {
      const uuid = `t2-ccy-${ccy.length}-${ccy.charCodeAt(1) || 0}`;
      const leg = {
        uuid,
        transactionClass: 'CASH',
        transactionType: 'DEPOSIT',
        transactionState: 'PROCESSED',
        amount: 5,
        ccy,
        accountGroupUuid: group(),
        received: 1_700_000_000_000,
      };
      const before = await metricValue(stack, 'account_sync_webhooks_total', { result: 'unusable' });
      const response = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(leg),
      });
      expect(response.status).toBe(503);
      const answer = await response.text();
      expect(answer).toContain('notification.ccy: expected a currency code');
      expect(answer.length).toBeLessThan(400);
      expect(answer).not.toContain('QQQQ');
      expect(await metricValue(stack, 'account_sync_webhooks_total', { result: 'unusable' })).toBe(before + 1);
      expect(await transactionEvents(stack, uuid)).toEqual([]);
      const stored = await request<{ ok: boolean }>(stack, transactionSubjects.get, { uuid });
      expect(stored.ok).toBe(false);
    },
  );

  it('reports the ips list and the ledger in /health', async () => {
    const health = (await (await fetch(`${stack.app?.httpUrl}/health`)).json()) as {
      checks: Record<string, { up: boolean }>;
    };
    expect(health.checks['webhook-sources']?.up).toBe(true);
    expect(health.checks['transaction-ledger']?.up).toBe(true);
  });
});

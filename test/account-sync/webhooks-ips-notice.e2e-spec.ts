/**
 * ips.json whose `change_notice` is not the strings we guessed (§4.12 gives its fields no types): the sandbox
 * writes `effective_date` as epoch milliseconds (dialect axis `ipsNoticeDate: epoch-ms`). The list is taken in —
 * at start-up too, where a list refused whole left every webhook answered 503 — the notice stands (an unlisted
 * sender is answered 503, retried, never 403) and what was odd is counted (spec-gaps WH14).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '#testing';
import {
  admin,
  metricValue,
  startAccountSyncStack,
  transactionEvents,
  type AccountSyncStack,
} from './webhooks-stack.js';

describe('account-sync: ips.json with a numeric effective_date (sandbox venue, real nats-server)', () => {
  let stack: AccountSyncStack;
  let listed: { version: number; change_notice: unknown };

  const count = (result: string) => metricValue(stack, 'account_sync_webhooks_total', { result });
  const deposit = async (amount: string): Promise<string> =>
    (
      await admin<{ uuid: string }>(stack.venue, '/deposits', {
        accountGroupUuid: stack.venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount,
      })
    ).uuid;

  beforeAll(async () => {
    stack = await startAccountSyncStack({ startApp: false, venue: { dialect: { ipsNoticeDate: 'epoch-ms' } } });
    // the notice is there before the app's first read of the list
    listed = await admin(stack.venue, '/webhooks/ips', {
      ipv4_cidrs: ['127.0.0.1/32', '198.51.100.0/24'],
      change_notice: { message: 'moving to 203.0.113.0/24', effective_date: '2027-01-01T00:00:00Z' },
    });
    await stack.startApp();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the list is loaded at start-up and a webhook from a listed sender is stored', async () => {
    // the sandbox really plays the other reading
    expect(listed.change_notice).toEqual({ message: 'moving to 203.0.113.0/24', effective_date: 1798761600000 });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) === listed.version,
      'ips.json with a numeric effective_date loaded',
    );
    expect(await metricValue(stack, 'account_sync_webhook_ips_change_notice')).toBe(1);
    expect(await metricValue(stack, 'account_sync_webhook_ips_notice_odd_total')).toBe(1);
    expect(await metricValue(stack, 'account_sync_webhook_ips_fetch_failures_total')).toBe(0);
    const health = await (await fetch(`${stack.app?.httpUrl}/health`)).text();
    expect(health).not.toMatch(/ips\.json/);

    const uuid = await deposit('7.00');
    await waitFor(
      async () => (await transactionEvents(stack, uuid)).some((event) => event.source === 'webhook'),
      'deposit stored from its webhook',
    );
  });

  it('while the notice stands, a sender the list does not hold yet is answered 503 (retried), never 403', async () => {
    const version = await metricValue(stack, 'account_sync_webhook_ips_version');
    const moved = await admin<{ version: number }>(stack.venue, '/webhooks/ips', {
      ipv4_cidrs: ['203.0.113.0/24'],
      change_notice: { message: 'moving to 203.0.113.0/24', effective_date: '2027-01-01T00:00:00Z' },
    });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) === moved.version,
      'the moved list loaded',
    );
    expect(moved.version).toBeGreaterThan(version);
    // the same notice: not counted again
    expect(await metricValue(stack, 'account_sync_webhook_ips_notice_odd_total')).toBe(1);
    const [refusedBefore, unconfirmedBefore] = [await count('refused_source'), await count('unconfirmed_source')];
    await deposit('8.00');
    await waitFor(async () => (await count('unconfirmed_source')) > unconfirmedBefore, 'answered 503');
    expect(await count('refused_source')).toBe(refusedBefore);
  });
});

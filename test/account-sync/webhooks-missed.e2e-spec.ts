/**
 * A missed webhook is filled from the transaction list: with the venue's webhook target unset, a deposit's
 * legs reach NATS through the REST sync (`source: list`), each state once; a late webhook for the same
 * state is then a duplicate.
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

describe('account-sync: a missed webhook filled from the transaction list', () => {
  let stack: AccountSyncStack;

  beforeAll(async () => {
    stack = await startAccountSyncStack({
      env: { SYNC_FAST_INTERVAL_MS: '500', SYNC_SLOW_INTERVAL_MS: '60000' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('publishes the list-only leg once, and a late webhook of the same state is a duplicate', async () => {
    await admin(stack.venue, '/webhooks/url', { url: null });
    const leg = await admin<{ uuid: string }>(stack.venue, '/deposits', {
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'GBP',
      amount: '75.30',
    });
    await admin(stack.venue, `/transactions/${leg.uuid}/process`);
    await waitFor(
      async () => (await transactionEvents(stack, leg.uuid)).at(-1)?.state === 'PROCESSED',
      'PROCESSED from the list',
      20_000,
    );
    const events = await transactionEvents(stack, leg.uuid);
    expect(events.every((event) => event.source === 'list')).toBe(true);
    expect(new Set(events.map((event) => event.state)).size).toBe(events.length);
    expect(['75.3', '75.30']).toContain(events.at(-1)?.leg.amount); // the venue's JSON number, read exactly

    const duplicates = await metricValue(stack, 'account_sync_webhooks_total', { result: 'duplicate' });
    await admin(stack.venue, '/webhooks/url', { url: stack.webhookUrl });
    await admin(stack.venue, '/webhooks/duplicate', { transactionUuid: leg.uuid });
    await waitFor(
      async () => (await metricValue(stack, 'account_sync_webhooks_total', { result: 'duplicate' })) > duplicates,
      'the late webhook answered as a duplicate',
    );
    expect(await transactionEvents(stack, leg.uuid)).toHaveLength(events.length);
  });
});

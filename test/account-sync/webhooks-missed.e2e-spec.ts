/**
 * A missed webhook is filled from the transaction list: with the venue's webhook target unset, a deposit's
 * legs reach NATS through the REST sync (`source: list`), each state once; a late webhook for the same
 * state is then a duplicate. And the list is the venue's word: a webhook's final state it keeps contradicting is
 * corrected (spec-gaps WH12).
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
      env: { SYNC_FAST_INTERVAL_MS: '500', SYNC_SLOW_INTERVAL_MS: '60000', TRANSACTION_CORRECTION_AFTER_MS: '1500' },
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

  it("a webhook's final state the venue's list keeps contradicting is corrected to the list's, once", async () => {
    await admin(stack.venue, '/webhooks/url', { url: null });
    const leg = await admin<{ uuid: string }>(stack.venue, '/deposits', {
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '888.88',
    });
    // from an allowed address (127.0.0.1 is in the sandbox's ips.json), but not what the venue did
    const forged = () =>
      fetch(stack.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          uuid: leg.uuid,
          transactionClass: 'CASH',
          transactionType: 'DEPOSIT',
          transactionState: 'CANCELLED',
          ccy: 'USD',
          amount: 888.88,
        }),
      }).then(async (response) => ({ status: response.status, body: await response.text() }));
    expect((await forged()).status).toBe(200);
    await admin(stack.venue, `/transactions/${leg.uuid}/process`);

    await waitFor(
      async () => (await transactionEvents(stack, leg.uuid)).at(-1)?.corrected === true,
      'the correction from the list',
      20_000,
    );
    const events = await transactionEvents(stack, leg.uuid);
    expect(events.at(-1)).toMatchObject({
      state: 'PROCESSED',
      previousState: 'CANCELLED',
      source: 'list',
      outcome: 'completed',
      corrected: true,
    });
    expect(events.filter((event) => event.corrected === true)).toHaveLength(1);
    expect(
      await metricValue(stack, 'account_sync_transactions_ingested_total', { source: 'list', result: 'corrected' }),
    ).toBe(1);
    // the same webhook again moves it no more
    expect(await forged()).toEqual({ status: 200, body: expect.stringContaining('stale') });
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // two list reads
    expect(await transactionEvents(stack, leg.uuid)).toHaveLength(events.length);
  });
});

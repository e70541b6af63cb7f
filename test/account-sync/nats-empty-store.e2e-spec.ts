/**
 * account-sync after NATS came back with an empty store (every stream, bucket and consumer lost): it declares
 * its own again by itself (libs/bus DeclaredTopology) and stores the next webhook's transaction state, instead
 * of answering 503 for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountLedgerName, AccountStateName } from '#bus';
import { waitFor } from '#testing';
import {
  ACCOUNT,
  admin,
  metricValue,
  startAccountSyncStack,
  transactionEvents,
  type AccountSyncStack,
} from './webhooks-stack.js';

describe('account-sync across a NATS restart with an empty store', () => {
  let stack: AccountSyncStack;

  async function depositStored(amount: string): Promise<void> {
    const leg = await admin<{ uuid: string }>(stack.venue, '/deposits', {
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount,
    });
    await waitFor(
      async () => (await transactionEvents(stack, leg.uuid).catch(() => [])).some((e) => e.state === 'PENDING'),
      `the deposit of ${amount} stored`,
      20_000,
    );
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack();
    await waitFor(async () => (await metricValue(stack, 'account_sync_webhook_ips_version')) >= 1, 'ips.json loaded');
    await depositStored('10.00');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('declares its streams and buckets again and stores the next webhook', async () => {
    const declaredAgain = () =>
      metricValue(stack, 'bus_topology_redeclarations_total', { trigger: 'reconnect', result: 'ok' });
    await stack.restartNats({ emptyStore: true });
    await waitFor(async () => (await declaredAgain()) >= 1, 'the topology declared again', 20_000);
    expect(await metricValue(stack, 'bus_topology_missing')).toBe(0);
    const own = [
      AccountLedgerName.transactions(ACCOUNT),
      AccountLedgerName.withdrawalEvents(ACCOUNT),
      `KV_${AccountLedgerName.withdrawalRequests(ACCOUNT)}`,
      AccountStateName.events(ACCOUNT),
      AccountStateName.historyEvents(ACCOUNT),
    ];
    const names = async (): Promise<string[]> => {
      const found: string[] = [];
      for await (const name of stack.jsm.streams.names()) found.push(name);
      return found;
    };
    // (the test's own client reconnects on its own schedule)
    await waitFor(async () => {
      const found = await names().catch((): string[] => []);
      return own.every((name) => found.includes(name));
    }, 'its streams and buckets on the new server');
    await depositStored('20.00');
  });
});

/**
 * The receiver killed (SIGKILL) in the middle of a stream of webhooks loses nothing: a notification is
 * answered 2xx only once stored, so whatever was not answered is retried by the venue and stored by the next
 * life of the app — each transaction ends in its one final state, each state published once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountLedgerName } from '#bus';
import { waitFor } from '#testing';
import { AppProcess } from '../kit/app-process.js';
import { ACCOUNT, admin, startAccountSyncStack, transactionEvents, type AccountSyncStack } from './webhooks-stack.js';

const LEGS = 15;

describe('account-sync webhook receiver killed mid-stream (child process)', () => {
  let stack: AccountSyncStack;
  let app: AppProcess | undefined;

  const start = async () => {
    app = AppProcess.start('account-sync', { ...stack.env, LOG_LEVEL: 'info' });
    await app.waitForLine('webhook receiver listening');
  };

  beforeAll(async () => {
    stack = await startAccountSyncStack({
      startApp: false,
      venue: { webhookMinIntervalMs: 15 },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await stack?.stop();
  });

  it('every leg ends PROCESSED, each state stored once, across a kill -9 and a restart', async () => {
    await start();
    const uuids: string[] = [];
    for (let index = 0; index < LEGS; index += 1) {
      const leg = await admin<{ uuid: string }>(stack.venue, '/deposits', {
        accountGroupUuid: stack.venue.seed.defaultGroupUuid,
        ccy: 'EUR',
        amount: `${index + 1}.01`,
      });
      uuids.push(leg.uuid);
      await admin(stack.venue, `/transactions/${leg.uuid}/process`);
    }
    const stream = AccountLedgerName.transactions(ACCOUNT);
    const stored = async () => (await stack.jsm.streams.info(stream)).state.messages;
    await waitFor(async () => (await stored()) >= 5, 'a few notifications stored');
    const before = await stored();
    app?.signal('SIGKILL');
    await app?.exited;
    expect(before).toBeLessThan(2 * LEGS); // killed mid-stream
    await start();
    await waitFor(
      async () => {
        for (const uuid of uuids) {
          const states = (await transactionEvents(stack, uuid)).map((event) => event.state);
          if (states.at(-1) !== 'PROCESSED') return false;
        }
        return true;
      },
      'every leg PROCESSED',
      30_000,
    );
    for (const uuid of uuids) {
      const states = (await transactionEvents(stack, uuid)).map((event) => event.state);
      expect(new Set(states).size).toBe(states.length); // no state twice
      expect(['PENDING,PROCESSED', 'PROCESSED']).toContain(states.join(','));
    }
    // and a SIGTERM stops it cleanly
    app?.signal('SIGTERM');
    expect((await app?.exited)?.code).toBe(0);
  }, 60_000);
});

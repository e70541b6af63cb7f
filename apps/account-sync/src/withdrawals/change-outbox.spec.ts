import { describe, expect, it } from '@jest/globals';
import type { WithdrawalStateChanged } from '#contracts';
import { ChangeOutbox, type OutboxChange } from './change-outbox.js';

const change = (requestId: string, state: string): OutboxChange => ({
  subject: `changed.${requestId}`,
  event: { v: 1, previousState: null, withdrawal: { requestId, state } } as unknown as WithdrawalStateChanged,
  msgId: `${requestId}:${state}`,
});

/** A stream that refuses while `down` is set, and records what it stored. */
function stream() {
  const stored: string[] = [];
  const failures: string[] = [];
  const state = { down: false };
  const outbox = new ChangeOutbox(
    async (c) => {
      await Promise.resolve();
      if (state.down) throw new Error('no PubAck in time');
      stored.push(c.msgId);
    },
    (requestId, c) => failures.push(`${requestId} ${c.msgId}`),
  );
  return { outbox, stored, failures, state };
}

describe('withdrawal change outbox', () => {
  it('publishes at once while the stream answers', async () => {
    const { outbox, stored } = stream();
    expect(await outbox.send('a', change('a', 'PENDING'))).toBe(true);
    expect(stored).toEqual(['a:PENDING']);
    expect(outbox.size).toBe(0);
  });

  it('keeps a change the stream refused (a final one too) and publishes it, in order, once it answers', async () => {
    const { outbox, stored, failures, state } = stream();
    state.down = true;
    expect(await outbox.send('a', change('a', 'PENDING'))).toBe(false);
    expect(await outbox.send('a', change('a', 'PROCESSED'))).toBe(false);
    expect(await outbox.send('b', change('b', 'CANCELLED'))).toBe(false);
    expect(outbox.size).toBe(3);
    expect(outbox.requestIds().sort()).toEqual(['a', 'b']);
    expect(failures).toEqual(['a a:PENDING', 'a a:PENDING', 'b b:CANCELLED']);
    state.down = false;
    for (const requestId of outbox.requestIds()) expect(await outbox.flush(requestId)).toBe(true);
    expect(stored).toEqual(['a:PENDING', 'a:PROCESSED', 'b:CANCELLED']);
    expect(outbox.size).toBe(0);
  });

  it('a later change of a request waits behind its unpublished earlier one: never out of order', async () => {
    const { outbox, stored, state } = stream();
    state.down = true;
    await outbox.send('a', change('a', 'PENDING_APPROVAL'));
    state.down = false;
    expect(await outbox.send('a', change('a', 'PENDING'))).toBe(true);
    expect(stored).toEqual(['a:PENDING_APPROVAL', 'a:PENDING']);
  });
});

import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '#testing';
import type { BusConsumers, DurableConsumerOptions } from './bus-consumers.js';
import { DurableFollower } from './durable-follower.js';

/** Consumers whose stream appears after `failures` attempts; counts attempts and stopped handles. */
function consumersFailing(failures: number) {
  const state = { attempts: 0, stopped: 0 };
  const consumers = {
    consumeDurable: (_options: DurableConsumerOptions) => {
      state.attempts += 1;
      if (state.attempts <= failures) return Promise.reject(new Error('stream not found'));
      return Promise.resolve({ stop: () => Promise.resolve(void (state.stopped += 1)) });
    },
  } as unknown as BusConsumers;
  return { consumers, state };
}

const consumer: DurableConsumerOptions = {
  stream: 'S',
  durable: 'd',
  filterSubject: 's.>',
  ackWaitMs: 1_000,
  handle: () => Promise.resolve(),
};
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DurableFollower', () => {
  it('tries again every retryMs until the stream can be consumed, then says it is attached', async () => {
    const clock = new FakeClock();
    const { consumers, state } = consumersFailing(2);
    const waited: string[] = [];
    let attached = 0;
    const follower = new DurableFollower({
      consumers,
      consumer,
      retryMs: 2_000,
      clock,
      onAttached: () => (attached += 1),
      onWaiting: (error) => waited.push(String(error)),
    });
    follower.start();
    await settle();
    expect([state.attempts, follower.attached]).toEqual([1, false]);
    clock.advance(1_999);
    await settle();
    expect(state.attempts).toBe(1);
    clock.advance(1);
    await settle();
    clock.advance(2_000);
    await settle();
    expect([state.attempts, follower.attached, attached]).toEqual([3, true, 1]);
    expect(waited).toEqual(['Error: stream not found', 'Error: stream not found']);
    await follower.stop();
    expect([follower.attached, state.stopped]).toEqual([false, 1]);
  });

  it('stopped while waiting, it tries no more', async () => {
    const clock = new FakeClock();
    const { consumers, state } = consumersFailing(1);
    const follower = new DurableFollower({ consumers, consumer, retryMs: 2_000, clock });
    follower.start();
    await settle();
    await follower.stop();
    clock.advance(10_000);
    await settle();
    expect([state.attempts, follower.attached]).toEqual([1, false]);
  });
});

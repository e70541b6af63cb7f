import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '#testing';
import { cannotLeaveInTime, OrderQueue, queueEstimate, queueValues, type QueueSources } from './order-queue.js';

const T0 = 1_800_000_000_000;

describe('order queue estimate', () => {
  it('waits (orders ahead + 1) × pace; refused when that, a tenth of it and the margin pass the time left to sendBy', () => {
    const estimate = queueEstimate(4, 1_000, T0 + 10_000, T0);
    expect(estimate).toEqual({ ordersAhead: 4, paceMs: 1_000, estimatedWaitMs: 5_000, timeLeftMs: 10_000 });
    expect(cannotLeaveInTime(estimate, 500)).toBe(false);
    // 5 s + 0.5 s (a tenth of it) + 0.5 s
    expect(cannotLeaveInTime(queueEstimate(4, 1_000, T0 + 5_999, T0), 500)).toBe(true);
    expect(cannotLeaveInTime(queueEstimate(4, 1_000, T0 + 6_000, T0), 500)).toBe(false);
  });

  it('never refuses an order with none ahead, whatever the pace and the time left', () => {
    expect(cannotLeaveInTime(queueEstimate(0, 60_000, T0 + 1, T0), 500)).toBe(false);
  });

  it('values: integers as strings; a deadline passed meanwhile shows no time left', () => {
    expect(queueValues(queueEstimate(2, 300, T0 - 5, T0))).toEqual({
      ordersAhead: '2',
      paceMs: '300',
      estimatedWaitMs: '900',
      timeLeftMs: '0',
    });
  });
});

describe('OrderQueue', () => {
  function setup(over: Partial<QueueSources> = {}) {
    const clock = new FakeClock(T0);
    let queued = 0;
    let unpublished = 0;
    let published = 0;
    let reads = 0;
    const sources: QueueSources = {
      paceMs: () => 1_000,
      commandsQueued: () => {
        reads += 1;
        return Promise.resolve(queued);
      },
      commandsUnpublished: () => unpublished,
      commandsPublished: () => published,
      ...over,
    };
    const queue = new OrderQueue(sources, clock, 500, 100);
    return {
      clock,
      queue,
      setQueued: (n: number) => (queued = n),
      setUnpublished: (n: number) => (unpublished = n),
      /** This instance stores `n` more commands: no longer unpublished here. */
      publish: (n: number) => {
        published += n;
        unpublished -= n;
      },
      reads: () => reads,
    };
  }

  it("counts every instance's commands in the stream and this instance's not yet there", async () => {
    const { queue, clock, setQueued, setUnpublished } = setup();
    setQueued(5);
    const passed = await queue.admit(T0 + 10_000);
    expect(passed).toMatchObject({ ok: true, result: 'passed' }); // 6 s + 0.5 s ≤ 10 s
    if (passed.ok) passed.counted(); // the desk counts it now (in commandsUnpublished)
    setUnpublished(4);
    clock.advance(101); // a reading of the stream serves 100 ms
    expect(await queue.admit(T0 + 10_101)).toMatchObject({
      ok: false,
      result: 'refused',
      estimate: { ordersAhead: 9, paceMs: 1_000, estimatedWaitMs: 10_000, timeLeftMs: 10_000 },
    });
  });

  it('orders decided at the same moment see each other until the desk counts them', async () => {
    const { queue } = setup();
    const burst = await Promise.all(Array.from({ length: 12 }, () => queue.admit(T0 + 10_000)));
    // the k-th (k ahead) passes while 1.1 × (k + 1) s + 0.5 s ≤ 10 s
    expect(burst.map((a) => a.ok)).toEqual([...Array<boolean>(8).fill(true), false, false, false, false]);
    for (const admission of burst) if (admission.ok) admission.counted();
    // counted by the desk from now on (here: nobody), no longer by the queue
    expect(await queue.admit(T0 + 10_000)).toMatchObject({ ok: true, result: 'passed' });
  });

  it('an order refused is not counted ahead of the next; counted() twice counts off once', async () => {
    const { queue, clock, setQueued } = setup();
    setQueued(20);
    expect((await queue.admit(T0 + 10_000)).ok).toBe(false);
    setQueued(1);
    clock.advance(101);
    const first = await queue.admit(T0 + 10_000);
    if (!first.ok) throw new Error('refused');
    first.counted();
    first.counted();
    // 1 ahead: 2 s + 0.2 s + 0.5 s
    expect(await queue.admit(T0 + 2_801)).toMatchObject({ ok: true, result: 'passed' });
  });

  it('no pace heard lately, or the stream not answering: taken as before, and says which', async () => {
    expect(await setup({ paceMs: () => undefined }).queue.admit(T0 + 1)).toMatchObject({ ok: true, result: 'no_pace' });
    const away = setup({ commandsQueued: () => Promise.reject(new Error('timeout')) });
    expect(await away.queue.admit(T0 + 1)).toMatchObject({ ok: true, result: 'no_backlog' });
  });

  it('a burst shares one reading of the stream; an older one is read again', async () => {
    const { queue, clock, setQueued, reads } = setup();
    setQueued(2);
    const burst = await Promise.all(Array.from({ length: 5 }, () => queue.admit(T0 + 60_000)));
    expect(burst.map((a) => a.ok)).toEqual([true, true, true, true, true]);
    expect(reads()).toBe(1);
    for (const admission of burst) if (admission.ok) admission.counted();
    clock.advance(99);
    await queue.admit(T0 + 60_000);
    expect(reads()).toBe(1);
    clock.advance(1);
    await queue.admit(T0 + 60_000);
    expect(reads()).toBe(2);
  });

  it("this instance's commands stored since the reading was asked for are still counted", async () => {
    const { queue, setQueued, setUnpublished, publish } = setup();
    setQueued(3);
    setUnpublished(4);
    const first = await queue.admit(T0 + 60_000); // the reading: 3 in the stream
    if (first.ok) first.counted();
    publish(4); // stored meanwhile: no longer unpublished, not in the reading either
    expect(await queue.admit(T0 + 4_500)).toMatchObject({
      ok: false,
      estimate: { ordersAhead: 7 }, // 3 + 4 (before: 3 — the four stored lost from both counts)
    });
  });

  it('a failed reading is not kept: the next order asks again', async () => {
    let fail = true;
    let asked = 0;
    const { queue } = setup({
      commandsQueued: () => {
        asked += 1;
        return fail ? Promise.reject(new Error('timeout')) : Promise.resolve(0);
      },
    });
    const away = await queue.admit(T0 + 1_000);
    expect(away).toMatchObject({ ok: true, result: 'no_backlog' });
    if (away.ok) away.counted();
    fail = false;
    expect(await queue.admit(T0 + 1_000)).toMatchObject({ ok: true, result: 'passed' });
    expect(asked).toBe(2);
  });

  it('the time left is read after the stream answered', async () => {
    const { queue, clock, setQueued } = setup({
      commandsQueued: () => {
        clock.advance(4_000);
        return Promise.resolve(1);
      },
    });
    setQueued(1);
    expect(await queue.admit(T0 + 6_000)).toMatchObject({ ok: false, estimate: { timeLeftMs: 2_000 } });
  });
});

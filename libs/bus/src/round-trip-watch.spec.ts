import { describe, expect, it } from '@jest/globals';
import { RoundTripWatch, type RoundTripPort } from './round-trip-watch.js';

/** A client whose PONGs can stop (its read loop ended) and whose clock the test moves. */
function fakeClient() {
  const state = { now: 0, connected: true, answering: true, reconnects: 0, stale: [] as number[] };
  const port: RoundTripPort = {
    connected: () => state.connected,
    roundTrip: () => (state.answering ? Promise.resolve(1) : new Promise(() => undefined)),
    reconnect: async () => {
      state.reconnects += 1;
    },
    now: () => state.now,
    onStale: (silent) => state.stale.push(silent),
  };
  return { state, port };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RoundTripWatch', () => {
  it('a client that answers its round trips is never reported silent', async () => {
    const { state, port } = fakeClient();
    const watch = new RoundTripWatch(port, { intervalMs: 1_000, staleMs: 5_000 });
    for (let t = 0; t <= 30_000; t += 1_000) {
      state.now = t;
      watch.tick();
      await settle();
    }
    expect(watch.silentFor()).toBeUndefined();
    expect(state.reconnects).toBe(0);
  });

  it('connected but no longer answering: reported silent after staleMs, reconnected once per staleMs, one question open', async () => {
    const { state, port } = fakeClient();
    const asked = { count: 0 };
    const roundTrip = port.roundTrip;
    port.roundTrip = () => {
      asked.count += 1;
      return roundTrip();
    };
    const watch = new RoundTripWatch(port, { intervalMs: 1_000, staleMs: 5_000 });
    watch.tick();
    await settle();
    state.answering = false;
    for (let t = 1_000; t <= 5_000; t += 1_000) {
      state.now = t;
      watch.tick();
      await settle();
    }
    expect(watch.silentFor()).toBeUndefined(); // answered at 0: 5 s is not more than staleMs
    state.now = 6_000;
    watch.tick();
    expect(watch.silentFor()).toBe(6_000);
    expect(state).toMatchObject({ reconnects: 1, stale: [6_000] });
    state.now = 9_000;
    watch.tick();
    expect(state.reconnects).toBe(1); // not again within staleMs
    state.now = 11_001;
    watch.tick();
    expect(state.reconnects).toBe(2);
    expect(asked.count).toBe(2); // the unanswered question stays the only one open
  });

  it('while disconnected (the client reconnects by itself) nothing is reported or forced', () => {
    const { state, port } = fakeClient();
    const watch = new RoundTripWatch(port, { intervalMs: 1_000, staleMs: 5_000 });
    state.connected = false;
    state.answering = false;
    state.now = 60_000;
    watch.tick();
    expect(watch.silentFor()).toBeUndefined();
    state.connected = true;
    state.now = 61_000;
    expect(watch.silentFor()).toBeUndefined(); // counted from the reconnection, not from before the outage
    expect(state.reconnects).toBe(0);
  });

  it('reports a server that stopped answering after unansweredMs, long before the reconnect is forced', async () => {
    const { state, port } = fakeClient();
    const told: boolean[] = [];
    port.onUnanswered = (unanswered) => told.push(unanswered);
    const watch = new RoundTripWatch(port, { intervalMs: 1_000, unansweredMs: 3_000, staleMs: 20_000 });
    watch.tick();
    await settle();
    state.answering = false;
    for (let t = 1_000; t <= 4_000; t += 1_000) {
      state.now = t;
      watch.tick();
      await settle();
    }
    expect(watch.unansweredFor()).toBe(4_000);
    expect(watch.silentFor()).toBeUndefined();
    expect(state.reconnects).toBe(0);
    expect(told).toEqual([true]);
    // the forced reconnect (20 s of silence); the client reconnected: reported answering at once
    for (let t = 5_000; t <= 25_000; t += 1_000) {
      state.now = t;
      watch.tick();
    }
    expect(state.reconnects).toBe(1);
    watch.reset();
    expect(watch.unansweredFor()).toBeUndefined();
    expect(told).toEqual([true, false]);
  });

  it('this process paused (SIGSTOP) is not the server going silent: counted again from its waking (outside tester)', async () => {
    const { state, port } = fakeClient();
    const told: boolean[] = [];
    port.onUnanswered = (unanswered) => told.push(unanswered);
    const watch = new RoundTripWatch(port, { intervalMs: 1_000, unansweredMs: 3_000, staleMs: 5_000 });
    watch.tick();
    await settle();
    state.answering = false; // the answer to the question asked on waking has not come yet
    state.now = 30_000; // 30 s without a tick: this process was stopped
    watch.tick();
    expect(watch.unansweredFor()).toBeUndefined();
    expect(state).toMatchObject({ reconnects: 0, stale: [] });
    expect(told).toEqual([]);
  });
});

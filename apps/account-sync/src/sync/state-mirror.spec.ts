import { describe, expect, it } from '@jest/globals';
import { AccountSyncSubjects, Subjects, type AccountStateChanged } from '#contracts';
import { StateMirror, type MirrorStore } from './state-mirror.js';

/** A KV bucket in memory (the mirror's port), surviving "restarts" of the mirror. */
class MemoryStore implements MirrorStore {
  readonly entries = new Map<string, unknown>();
  values<T>(): Promise<Map<string, T>> {
    return Promise.resolve(new Map(this.entries) as Map<string, T>);
  }
  put(key: string, value: unknown): Promise<void> {
    this.entries.set(key, structuredClone(value));
    return Promise.resolve();
  }
}

/** A stream deduplicating on Nats-Msg-Id, like JetStream within its window. */
class DedupStream {
  readonly messages: Array<{ subject: string; event: AccountStateChanged<{ state: string }> }> = [];
  private readonly ids = new Set<string>();
  failNext = false;
  publish = (subject: string, payload: unknown, msgId: string): Promise<void> => {
    if (!this.ids.has(msgId)) {
      this.ids.add(msgId);
      this.messages.push({ subject, event: payload as AccountStateChanged<{ state: string }> });
    }
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('crash after the publish, before the KV write'));
    }
    return Promise.resolve();
  };
}

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', 'a1'));
const mirrorOn = (store: MemoryStore, stream: DedupStream) =>
  new StateMirror<{ state: string }>(store, stream.publish, subjects, {
    resource: 'trade',
    stateOf: (trade) => trade.state,
  });

describe('StateMirror', () => {
  it('publishes created, changed and state-changed once each, with the previous value', async () => {
    const store = new MemoryStore();
    const stream = new DedupStream();
    const mirror = mirrorOn(store, stream);
    await mirror.load();
    await mirror.apply(new Map([['t1', { state: 'PENDING_SETTLEMENT' }]]));
    await mirror.apply(new Map([['t1', { state: 'PENDING_SETTLEMENT' }]]));
    await mirror.apply(new Map([['t1', { state: 'SETTLED' }]]));
    expect(stream.messages.map((m) => m.subject)).toEqual([
      'gw.v1.a1.acct.trade.created.t1',
      'gw.v1.a1.acct.trade.state-changed.t1',
    ]);
    expect(stream.messages[1]?.event).toMatchObject({
      version: 2,
      value: { state: 'SETTLED' },
      previous: { state: 'PENDING_SETTLEMENT' },
    });
  });

  /** SETTLED published, then a crash before its KV write; the mirror restarted on the same store and stream. */
  async function restartedAfterCrash() {
    const store = new MemoryStore();
    const stream = new DedupStream();
    const first = mirrorOn(store, stream);
    await first.load();
    await first.apply(new Map([['t1', { state: 'PENDING_SETTLEMENT' }]]));
    stream.failNext = true;
    await expect(first.apply(new Map([['t1', { state: 'SETTLED' }]]))).rejects.toThrow('crash');
    const second = mirrorOn(store, stream);
    await second.load();
    return { stream, second };
  }

  it('a restart publishes nothing twice, also after a crash between the publish and the KV write', async () => {
    const { stream, second } = await restartedAfterCrash();
    expect(second.get('t1')).toEqual({ state: 'PENDING_SETTLEMENT' });
    await second.apply(new Map([['t1', { state: 'SETTLED' }]]));
    await second.apply(new Map([['t1', { state: 'SETTLED' }]]));
    expect(stream.messages).toHaveLength(2);
    expect(second.get('t1')).toEqual({ state: 'SETTLED' });
  });

  it('a crash between publish and KV write, then another value at the venue: that value is still published', async () => {
    const { stream, second } = await restartedAfterCrash();
    await second.apply(new Map([['t1', { state: 'CANCELLED' }]])); // the same version number, another value
    expect(stream.messages.map((m) => m.event.value?.state)).toEqual(['PENDING_SETTLEMENT', 'SETTLED', 'CANCELLED']);
    expect(second.get('t1')).toEqual({ state: 'CANCELLED' });
  });

  it('removes what a complete read no longer returns, and a re-created key gets a new version', async () => {
    const store = new MemoryStore();
    const stream = new DedupStream();
    const mirror = mirrorOn(store, stream);
    await mirror.load();
    await mirror.apply(new Map([['b1', { state: 'x' }]]), () => true);
    await mirror.apply(new Map(), () => true);
    const reloaded = mirrorOn(store, stream);
    await reloaded.load();
    expect(reloaded.size).toBe(0);
    await reloaded.apply(new Map([['b1', { state: 'x' }]]), () => true);
    expect(stream.messages.map((m) => [m.event.change, m.event.version])).toEqual([
      ['created', 1],
      ['removed', 2],
      ['created', 3],
    ]);
  });

  it('a watcher is told of the records held, then of each one stored or removed, and of a reload, by key', async () => {
    const store = new MemoryStore();
    const mirror = mirrorOn(store, new DedupStream());
    await mirror.apply(new Map([['t1', { state: 'PENDING_SETTLEMENT' }]]));
    const told: Array<[string, string | undefined, string | undefined]> = [];
    mirror.watch((key, previous, value) => told.push([key, previous?.state, value?.state]));
    await mirror.apply(new Map([['t1', { state: 'PENDING_SETTLEMENT' }]])); // unchanged: not stored, not told
    await mirror.apply(new Map([['t2', { state: 'SETTLED' }]]));
    await mirror.apply(new Map([['t1', { state: 'SETTLED' }]]), (key) => key === 't2');
    store.entries.set('t3', { version: 1, seenAt: 0, value: { state: 'FAILED' } }); // written by another mirror
    await mirror.load();
    expect(told).toEqual([
      ['t1', undefined, 'PENDING_SETTLEMENT'], // held when it started watching
      ['t2', undefined, 'SETTLED'],
      ['t1', 'PENDING_SETTLEMENT', 'SETTLED'],
      ['t2', 'SETTLED', undefined],
      ['t1', 'SETTLED', 'SETTLED'], // reloaded
      ['t3', undefined, 'FAILED'],
    ]);
  });
});

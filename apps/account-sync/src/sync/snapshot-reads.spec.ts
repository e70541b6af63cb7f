import { describe, expect, it } from '@jest/globals';
import { AccountSyncSubjects, Subjects } from '#contracts';
import { JsonLogger, MetricsRegistry } from '#observability';
import type { Participant, ParticipantQuery, VenueRestClient } from '#venue-api';
import type { ReadContext } from './read-context.js';
import { readAccountDetails } from './snapshot-reads.js';
import { StateMirror, type MirrorStore } from './state-mirror.js';
import { SyncMetrics } from './sync-metrics.js';
import { SyncStop } from './sync-stop.js';
import { SYNC_RESOURCES } from './sync-triggers.js';
import type { AccountGroupRef } from './venue-reads.js';

const A = '9a000000-0000-4000-8000-00000000000a';
const G = '9a000000-0000-4000-8000-00000000000b';

/** A KV bucket in memory (the mirror's port). */
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

/** A venue whose account details answer when the test lets them (the read is "in the middle" meanwhile). */
class ScriptedDetails {
  readonly asked: string[] = [];
  /** Groups the venue answers 404 for (no onboarded entity). */
  readonly withoutEntity = new Set<string>();
  private readonly waiting: Array<() => void> = [];
  getAccountDetails(query?: ParticipantQuery): Promise<Participant | undefined> {
    const group = query?.accountGroupUuid ?? '';
    this.asked.push(group);
    return new Promise((resolve) =>
      this.waiting.push(() => resolve(this.withoutEntity.has(group) ? undefined : entityOf(group))),
    );
  }
  /** Answers every question asked so far. */
  answer(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

function entityOf(group: string): Participant {
  return { uuid: `entity-of-${group}`, type: 'ENTITY', kind: 'ORIGINATOR', clientAccountGroupUuid: group };
}

async function setUp() {
  const removed: string[] = [];
  const mirror = new StateMirror<Participant>(
    new MemoryStore(),
    () => Promise.resolve(),
    new AccountSyncSubjects(new Subjects('gw.v1', 'a1')),
    {
      resource: 'account-details',
      onRecorded: (change, previous) => {
        if (change === 'removed') removed.push(previous?.clientAccountGroupUuid ?? '?');
      },
    },
  );
  await mirror.load();
  const venue = new ScriptedDetails();
  const ctx = {
    client: venue as unknown as VenueRestClient,
    mirrors: { accountDetails: mirror },
    metrics: new SyncMetrics(new MetricsRegistry('t', { defaultMetrics: false }), () => undefined, SYNC_RESOURCES),
    log: new JsonLogger('test', 'snapshot-reads', 'error', { write: () => undefined }),
    now: () => 0,
    overlapMs: 0,
    sweepPages: 1,
    stop: new SyncStop(),
  } as unknown as ReadContext;
  return { mirror, venue, ctx, removed };
}

/** Lets the read reach its next venue question. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('account details read (§4.6) while the account groups change', () => {
  it('a group created while the read runs: nothing is removed, and the next read takes its details', async () => {
    const { mirror, venue, ctx, removed } = await setUp();
    let groups: AccountGroupRef[] = [{ uuid: A }];
    const read = readAccountDetails(ctx, () => groups);
    await settle();
    groups = [{ uuid: A }, { uuid: G }]; // a balances read listed the new group meanwhile
    venue.answer();
    await read;
    expect(mirror.keys()).toEqual([A]);
    const next = readAccountDetails(ctx, () => groups);
    for (let i = 0; i < 3; i += 1) {
      await settle();
      venue.answer();
    }
    await next;
    expect(mirror.keys().sort()).toEqual([A, G]);
    expect(venue.asked).toEqual([A, A, G]);
    expect(removed).toEqual([]);
  });

  it('a held group the read was not asked for (left out of the list it started with) keeps its details', async () => {
    const { mirror, venue, ctx, removed } = await setUp();
    let groups: AccountGroupRef[] = [{ uuid: A }, { uuid: G }];
    const first = readAccountDetails(ctx, () => groups);
    for (let i = 0; i < 3; i += 1) {
      await settle();
      venue.answer();
    }
    await first;
    expect(mirror.keys().sort()).toEqual([A, G]);
    // one balances read leaves G out; the next, while the details read runs, lists it again
    groups = [{ uuid: A }];
    const second = readAccountDetails(ctx, () => groups);
    await settle();
    groups = [{ uuid: A }, { uuid: G }];
    venue.answer();
    await second;
    expect(removed).toEqual([]);
    expect(mirror.get(G)).toEqual(entityOf(G));
  });

  it('a group asked whose details the venue no longer has (404) loses them', async () => {
    const { mirror, venue, ctx, removed } = await setUp();
    const groups: AccountGroupRef[] = [{ uuid: A }, { uuid: G }];
    const first = readAccountDetails(ctx, () => groups);
    for (let i = 0; i < 3; i += 1) {
      await settle();
      venue.answer();
    }
    await first;
    venue.withoutEntity.add(G);
    const second = readAccountDetails(ctx, () => groups);
    for (let i = 0; i < 3; i += 1) {
      await settle();
      venue.answer();
    }
    await second;
    expect(removed).toEqual([G]);
    expect(mirror.keys()).toEqual([A]);
  });
});

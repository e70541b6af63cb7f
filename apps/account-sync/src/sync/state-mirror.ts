/**
 * One mirrored resource: its current records (in memory, loaded from its KV bucket at start) and the
 * comparison that turns a fresh read from the venue into changes. Each change is published on the state
 * stream first (Nats-Msg-Id `{resource}:{key}:{version}:{digest}`), then written to the KV bucket: a crash
 * between the two makes the next sync find the same change with the same version, which the stream drops as a
 * duplicate — so a restart publishes nothing twice and loses nothing; had the value changed meanwhile, its
 * digest differs and it is published (under the same version number).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  stateEventMsgId,
  type AccountStateChanged,
  type AccountSyncSubjects,
  type MirroredRecord,
  type MirroredResource,
  type StateChange,
} from '#contracts';

/** The two NATS operations a mirror needs (KV bucket and durable publish), as ports for unit tests. */
export interface MirrorStore {
  values<T>(): Promise<Map<string, T>>;
  put(key: string, value: unknown): Promise<unknown>;
}

/** What a removed key keeps in the bucket: its last version. */
interface Tombstone {
  version: number;
  seenAt: number;
  removed: true;
}

export type DurablePublish = (subject: string, payload: unknown, msgId: string) => Promise<unknown>;

export interface MirrorOptions<T> {
  resource: MirroredResource;
  /** `state-changed` instead of `changed` when this differs between two versions (trades: their state). */
  stateOf?: (record: T) => string | undefined;
  /** Changes applied at once (each: publish, then KV put). */
  concurrency?: number;
  /** Told of each change once it is stored (published and put). */
  onRecorded?: (change: StateChange, previous: T | undefined, value: T | undefined) => void;
}

/** Told of a record held, changed or dropped, by key: its value before and after (undefined: not held). */
export type MirrorWatcher<T> = (key: string, previous: T | undefined, value: T | undefined) => void;

export interface ApplyResult {
  created: number;
  changed: number;
  removed: number;
}

export class StateMirror<T> {
  private records = new Map<string, MirroredRecord<T>>();
  private readonly watchers: Array<MirrorWatcher<T>> = [];

  constructor(
    private readonly store: MirrorStore,
    private readonly publish: DurablePublish,
    private readonly subjects: AccountSyncSubjects,
    private readonly options: MirrorOptions<T>,
    private readonly now: () => number = Date.now,
  ) {}

  get resource(): MirroredResource {
    return this.options.resource;
  }

  /** Versions of removed keys (a KV tombstone), so a re-created key never reuses a version's Nats-Msg-Id. */
  private removedVersions = new Map<string, number>();

  async load(): Promise<void> {
    const dropped = this.records;
    this.records = new Map();
    this.removedVersions.clear();
    for (const [key, entry] of await this.store.values<MirroredRecord<T> | Tombstone>()) {
      if ('removed' in entry) this.removedVersions.set(key, entry.version);
      else this.records.set(key, entry);
    }
    for (const watcher of this.watchers) {
      for (const [key, entry] of dropped) if (!this.records.has(key)) watcher(key, entry.value, undefined);
      for (const [key, entry] of this.records) watcher(key, dropped.get(key)?.value, entry.value);
    }
  }

  /**
   * `watcher` is told of the records held now (as if created), then of each one stored, removed or (re)loaded,
   * as the mirror's map changes (an index kept beside the records, e.g. held-trade-span.ts).
   */
  watch(watcher: MirrorWatcher<T>): void {
    this.watchers.push(watcher);
    for (const [key, entry] of this.records) watcher(key, undefined, entry.value);
  }

  get size(): number {
    return this.records.size;
  }

  get(key: string): T | undefined {
    return this.records.get(key)?.value;
  }

  values(): T[] {
    return [...this.records.values()].map((entry) => entry.value);
  }

  /** The records held, one at a time (no copy of the whole set). */
  *iterate(): IterableIterator<T> {
    for (const entry of this.records.values()) yield entry.value;
  }

  keys(): string[] {
    return [...this.records.keys()];
  }

  /**
   * Applies a read of some records. `scope`: the keys this read covers completely — a held key within it
   * that the read did not return was removed at the venue (undefined: the read covers only what it returned).
   */
  async apply(fresh: Map<string, T>, scope?: (key: string) => boolean): Promise<ApplyResult> {
    const jobs: Array<() => Promise<void>> = [];
    const result: ApplyResult = { created: 0, changed: 0, removed: 0 };
    for (const [key, value] of fresh) {
      const held = this.records.get(key);
      if (held !== undefined && isDeepStrictEqual(held.value, value)) continue;
      const change = this.changeOf(held?.value, value);
      result[change === 'created' ? 'created' : 'changed'] += 1;
      jobs.push(() => this.record(key, change, held, value));
    }
    if (scope !== undefined) {
      for (const [key, held] of this.records) {
        if (!fresh.has(key) && scope(key)) {
          result.removed += 1;
          jobs.push(() => this.record(key, 'removed', held, undefined));
        }
      }
    }
    await runAll(jobs, this.options.concurrency ?? 256);
    return result;
  }

  /** Tells the watchers of a change just made to the map (`previous`: what it held, read just before). */
  private told(key: string, previous: T | undefined, value: T | undefined): void {
    for (const watcher of this.watchers) watcher(key, previous, value);
  }

  private changeOf(previous: T | undefined, value: T): StateChange {
    if (previous === undefined) return 'created';
    const stateOf = this.options.stateOf;
    return stateOf !== undefined && stateOf(previous) !== stateOf(value) ? 'state-changed' : 'changed';
  }

  private async record(
    key: string,
    change: StateChange,
    held: MirroredRecord<T> | undefined,
    value: T | undefined,
  ): Promise<void> {
    const version = (held?.version ?? this.removedVersions.get(key) ?? 0) + 1;
    const seenAt = this.now();
    const event: AccountStateChanged<T> = {
      v: 1,
      resource: this.resource,
      key,
      change,
      version,
      seenAt,
      ...(value === undefined ? {} : { value }),
      ...(held === undefined ? {} : { previous: held.value }),
    };
    await this.publish(
      this.subjects.stateChanged(this.resource, change, key),
      event,
      stateEventMsgId(this.resource, key, version, digestOf(value)),
    );
    if (value === undefined) {
      const tombstone: Tombstone = { version, seenAt, removed: true };
      await this.store.put(key, tombstone);
      const previous = this.records.get(key)?.value;
      this.records.delete(key);
      this.removedVersions.set(key, version);
      this.told(key, previous, value);
    } else {
      const entry: MirroredRecord<T> = { version, seenAt, value };
      await this.store.put(key, entry);
      const previous = this.records.get(key)?.value;
      this.records.set(key, entry);
      this.told(key, previous, value);
    }
    this.options.onRecorded?.(change, held?.value, value);
  }
}

/** 16 hex digits of the value's SHA-256 (its JSON as read), `removed` for a removal. */
function digestOf(value: unknown): string {
  if (value === undefined) return 'removed';
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

async function runAll(jobs: Array<() => Promise<void>>, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next] as () => Promise<void>;
      next += 1;
      await job();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
}

import { Kvm, type KV } from '@nats-io/kv';
import {
  DeliverPolicy,
  JetStreamApiError,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { BusConnection } from './bus-connection.js';
import { isNoStreamAnswer, type StreamIdentity } from './declared-topology.js';

export interface KvBucketOptions {
  /** 'file' for state that must survive a server restart. */
  storage?: 'file' | 'memory';
  history?: number;
  /** Entries older than this are removed (ms); 0 or absent keeps them. */
  maxAgeMs?: number;
  /** Copies kept by a JetStream cluster (1 on a single server). */
  replicas?: number;
}

export interface KvEntry<T> {
  value: T;
  revision: number;
  /** When the server stored this revision (epoch ms, the server's clock). */
  storedAt: number;
}

/** One key's change seen by a watch: `value` undefined when the key was deleted or purged, or is not JSON (`malformed`). */
export interface KvChange<T> {
  key: string;
  value: T | undefined;
  revision: number;
  malformed?: true;
}

/** A running watch: `stop()` ends it; `ended` settles when it ends (stopped, or the connection closed). */
export interface KvWatch {
  stop(): void;
  readonly ended: Promise<void>;
}

/**
 * A JetStream KV bucket holding JSON values. Reads over many keys (`keys`, `values`) go through a consumer this
 * class creates and deletes itself: the client's own `kv.keys()`/`kv.watch()` leave theirs on the server until
 * its 5-minute inactivity expiry, which for a read done every second kept hundreds on the bucket's stream.
 */
export class KvBucket {
  private readonly encoder = new TextEncoder();
  private readonly stream: string;
  private readonly subjectPrefix: string;
  private readonly afresh: (() => void)[] = [];

  constructor(
    private readonly kv: KV,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    name: string,
    /** Told when a write finds no stream behind the bucket (the server lost it). */
    private readonly noStream: () => void = () => undefined,
  ) {
    this.stream = `KV_${name}`;
    this.subjectPrefix = `$KV.${name}.`;
  }

  /**
   * Calls `listener` whenever the bucket had to be declared again because the server had lost it (a nats-server
   * restarted with an empty store): whoever keeps state in it writes that state again.
   */
  onDeclaredAfresh(listener: () => void): void {
    this.afresh.push(listener);
  }

  /** Told by BusKv when the bucket was declared again after the server lost it. */
  declaredAfresh(): void {
    for (const listener of this.afresh) listener();
  }

  /**
   * Removes the delete and purge markers older than `olderThanMs` (by the server's clock; 0: all of them) — a bucket whose keys
   * are written once and removed keeps one marker per key ever removed otherwise (history 1 keeps the last
   * message of each subject, and a marker is one). Each purge is bounded by the marker's sequence, so a value
   * written to the key after the marker is never touched. `filter` limits it to some keys. Returns how many went.
   */
  async purgeRemovedMarkers(olderThanMs = 0, filter = '>'): Promise<number> {
    const markers: { key: string; seq: number }[] = [];
    // no age asked: every marker goes, whatever the clocks say (a marker written this millisecond is stamped
    // after the process's Date.now(), and the server's clock may run a little ahead)
    const before = olderThanMs > 0 ? Date.now() - olderThanMs : Number.POSITIVE_INFINITY;
    await this.readLatest(filter, true, (key, _value, marker) => {
      if (marker !== undefined && Number(marker.info.timestampNanos) / 1e6 <= before)
        markers.push({ key, seq: marker.seq });
    });
    let purged = 0;
    for (const { key, seq } of markers) {
      const answer = await this.jsm.streams.purge(this.stream, { filter: `${this.subjectPrefix}${key}`, seq: seq + 1 });
      purged += answer.purged;
    }
    return purged;
  }

  /**
   * Writes `value` only if `key` has no value yet. 'exists' means someone (maybe an earlier life of this
   * process) already wrote it: the atomic "mark before acting" that makes an action happen at most once.
   */
  async createIfAbsent(key: string, value: unknown): Promise<'created' | 'exists'> {
    try {
      await this.written(this.kv.create(key, this.encoder.encode(JSON.stringify(value))));
      return 'created';
    } catch (error) {
      if (isWrongLastSequence(error)) return 'exists';
      throw error;
    }
  }

  /**
   * When the server created the bucket's stream (ISO): another value than before means the bucket was declared
   * afresh — the server lost it with every key it held.
   */
  async created(): Promise<string> {
    return (await this.kv.status()).streamInfo.created;
  }

  async get<T>(key: string): Promise<KvEntry<T> | undefined> {
    const entry = await this.kv.get(key);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return { value: entry.json<T>(), revision: entry.revision, storedAt: entry.created.getTime() };
  }

  async put(key: string, value: unknown): Promise<number> {
    return this.written(this.kv.put(key, this.encoder.encode(JSON.stringify(value))));
  }

  /** Compare-and-set: fails unless the key is still at `revision`. */
  async update(key: string, value: unknown, revision: number): Promise<number> {
    return this.written(this.kv.update(key, this.encoder.encode(JSON.stringify(value)), revision));
  }

  /**
   * Compare-and-set: writes only if the key is still at `revision` (0: it has no value). Returns the new
   * revision, or 'conflict' when someone else wrote the key since.
   */
  async compareAndSet(key: string, value: unknown, revision: number): Promise<number | 'conflict'> {
    const data = this.encoder.encode(JSON.stringify(value));
    try {
      return await this.written(revision === 0 ? this.kv.create(key, data) : this.kv.update(key, data, revision));
    } catch (error) {
      if (isWrongLastSequence(error)) return 'conflict';
      throw error;
    }
  }

  /**
   * The values of the keys matching `filter` now (as `initial`), then every later change as it happens,
   * in revision order, to `onChange`. The watch starts after the last revision read, so nothing falls in
   * between; a change may be seen in `initial` and again by the watch (compare revisions).
   */
  async watch<T>(
    filter: string,
    onChange: (change: KvChange<T>) => void,
  ): Promise<{ initial: KvChange<T>[]; watch: KvWatch }> {
    const status = await this.kv.status();
    const lastRevision = status.streamInfo.state.last_seq;
    const initial: KvChange<T>[] = [];
    for (const key of await this.keys(filter)) {
      const entry = await this.kv.get(key);
      if (entry !== null && entry.operation === 'PUT') initial.push(changeOf<T>(entry));
    }
    const iterator = await this.kv.watch({ key: filter, resumeFromRevision: lastRevision + 1 });
    // The client keeps the watch's consumer on its iterator and never deletes it when the watch stops.
    const consumer = (iterator as { _data?: unknown })._data;
    const ended = (async () => {
      for await (const entry of iterator) onChange(changeOf<T>(entry));
    })().finally(() => (isDeletable(consumer) ? consumer.delete().catch(() => undefined) : undefined));
    return { initial, watch: { stop: () => iterator.stop(), ended } };
  }

  /** Keys with a value, optionally only those matching a subject-style filter (`open.>`). */
  async keys(filter = '>'): Promise<string[]> {
    const keys = new Set<string>();
    await this.readLatest(filter, true, (key, message) => (message === undefined ? keys.delete(key) : keys.add(key)));
    return [...keys];
  }

  /** Every key's current value, read in one pass, for loading state at start. */
  async values<T>(): Promise<Map<string, T>> {
    const values = new Map<string, T>();
    await this.readLatest('>', false, (key, message) =>
      message === undefined ? values.delete(key) : values.set(key, message.json<T>()),
    );
    return values;
  }

  /** Removes the key's value and history (idempotent). */
  async remove(key: string): Promise<void> {
    await this.written(this.kv.purge(key));
  }

  /**
   * Removes the key leaving no marker behind (idempotent): a read over many keys (`keys`, `values`) is delivered the
   * last message of every key, a removed one's marker included, so keys removed with `remove` cost every later read
   * until the bucket's age limit drops them. Only for a key never written again (a later value is removed as well);
   * a watch running meanwhile sees the removal.
   */
  async erase(key: string): Promise<void> {
    await this.remove(key);
    await this.jsm.streams.purge(this.stream, { filter: `${this.subjectPrefix}${key}` });
  }

  /**
   * Removes the key's value only if it is still at `revision` (compare-and-remove): 'conflict' when someone wrote
   * it since, and then nothing is removed.
   */
  async removeAt(key: string, revision: number): Promise<'removed' | 'conflict'> {
    try {
      await this.written(this.kv.purge(key, { previousSeq: revision }));
      return 'removed';
    } catch (error) {
      if (isWrongLastSequence(error)) return 'conflict';
      throw error;
    }
  }

  /**
   * The latest entry of each key matching `filter`, in stream order (`undefined`: deleted or purged), read with
   * an ordered consumer deleted when done. A later message for a key overrides an earlier one (a consumer the
   * client re-creates mid-read reads on from its last sequence, so a key may come twice).
   */
  private async readLatest(
    filter: string,
    headersOnly: boolean,
    each: (key: string, message: JsMsg | undefined, marker?: JsMsg) => void,
  ): Promise<void> {
    const consumer = await this.js.consumers.get(this.stream, {
      filter_subjects: `${this.subjectPrefix}${filter}`,
      deliver_policy: DeliverPolicy.LastPerSubject,
      ...(headersOnly ? { headers_only: true } : {}),
    });
    try {
      let pending = (await consumer.info(true)).num_pending;
      // In bounded batches; a batch that brings nothing ends the read (what `pending` counted may be gone since).
      while (pending > 0) {
        const batch = await consumer.fetch({
          max_messages: Math.min(pending, READ_BATCH),
          expires: READ_BATCH_WAIT_MS,
        });
        let read = 0;
        for await (const message of batch) {
          read += 1;
          pending = message.info.pending;
          const operation = message.headers?.get(KV_OPERATION);
          const removed = operation === 'DEL' || operation === 'PURGE';
          const key = message.subject.slice(this.subjectPrefix.length);
          if (removed) each(key, undefined, message);
          else each(key, message);
        }
        if (read === 0) break;
      }
    } finally {
      await consumer.delete().catch(() => undefined); // else it lingers until its 5-minute inactivity expiry
    }
  }

  /** A write answered "no stream" tells the topology before the caller sees the error. */
  private async written<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (error) {
      if (isNoStreamAnswer(error)) this.noStream();
      throw error;
    }
  }
}

/** Opens (creating when absent) JetStream KV buckets. */
export class BusKv {
  constructor(private readonly connection: BusConnection) {}

  /** Kept in the connection's topology: the bucket is declared again whenever the server may have lost it. */
  async bucket(name: string, options: KvBucketOptions = {}): Promise<KvBucket> {
    const kvm = new Kvm(this.connection.client);
    const declare = () =>
      kvm.create(name, {
        storage: options.storage === 'memory' ? StorageType.Memory : StorageType.File,
        history: options.history ?? 1,
        ...(options.maxAgeMs ? { ttl: options.maxAgeMs } : {}),
        ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
      });
    const kv = await declare();
    const { topology } = this.connection;
    const stream = `KV_${name}`;
    const found = async (): Promise<StreamIdentity | undefined> =>
      this.connection.jsm.streams.info(stream).then(
        (info) => ({
          stream,
          created: info.created,
          storage: info.config.storage === StorageType.Memory ? ('memory' as const) : ('file' as const),
        }),
        (error: unknown) => {
          if (error instanceof JetStreamApiError && error.status === 404) return undefined;
          throw error;
        },
      );
    // declared again only if its stream is gone (a read otherwise: see BusStreams.createIfMissing)
    const createIfMissing = async (): Promise<StreamIdentity | undefined> => {
      const identity = await found();
      if (identity !== undefined) return identity;
      await declare();
      bucket.declaredAfresh();
      return found();
    };
    const identity = await found();
    topology.keep({ kind: 'bucket', name, ...(identity !== undefined ? { identity } : {}), declare: createIfMissing });
    const bucket = new KvBucket(kv, this.connection.js, this.connection.jsm, name, () =>
      topology.redeclare('no_stream'),
    );
    return bucket;
  }
}

function changeOf<T>(entry: { key: string; revision: number; operation: string; json<V>(): V }): KvChange<T> {
  if (entry.operation !== 'PUT') return { key: entry.key, value: undefined, revision: entry.revision };
  try {
    return { key: entry.key, value: entry.json<T>(), revision: entry.revision };
  } catch {
    return { key: entry.key, value: undefined, revision: entry.revision, malformed: true };
  }
}

/** The header a KV delete or purge marker carries (the client's `kvOperationHdr`, not exported). */
const KV_OPERATION = 'KV-Operation';
const READ_BATCH = 1_000;
const READ_BATCH_WAIT_MS = 2_000;

function isDeletable(value: unknown): value is { delete(): Promise<unknown> } {
  return typeof value === 'object' && value !== null && typeof (value as { delete?: unknown }).delete === 'function';
}

function isWrongLastSequence(error: unknown): boolean {
  if (error instanceof JetStreamApiError) return error.code === 10071;
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

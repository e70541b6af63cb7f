import { KvWatchInclude, Kvm, type KV } from '@nats-io/kv';
import { JetStreamApiError, StorageType } from '@nats-io/jetstream';
import type { BusConnection } from './bus-connection.js';
import { isNoStreamAnswer } from './declared-topology.js';

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

/** A JetStream KV bucket holding JSON values. */
export class KvBucket {
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly kv: KV,
    /** Told when a write finds no stream behind the bucket (the server lost it). */
    private readonly noStream: () => void = () => undefined,
  ) {}

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
    const ended = (async () => {
      for await (const entry of iterator) onChange(changeOf<T>(entry));
    })();
    return { initial, watch: { stop: () => iterator.stop(), ended } };
  }

  /** Keys with a value, optionally only those matching a subject-style filter (`open.>`). */
  async keys(filter?: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of await this.kv.keys(filter)) keys.push(key);
    return keys;
  }

  /** Every key's current value, read in one pass (a watch of last values), for loading state at start. */
  async values<T>(): Promise<Map<string, T>> {
    const values = new Map<string, T>();
    if ((await this.kv.status()).values === 0) return values;
    const watch = await this.kv.watch({ include: KvWatchInclude.LastValue });
    for await (const entry of watch) {
      if (entry.operation === 'PUT') values.set(entry.key, entry.json<T>());
      else values.delete(entry.key);
      if (!entry.delta) break; // 0: the last of the values held when the watch began
    }
    watch.stop();
    return values;
  }

  /** Removes the key's value and history (idempotent). */
  async remove(key: string): Promise<void> {
    await this.written(this.kv.purge(key));
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
    // declared again only if its stream is gone (a read otherwise: see BusStreams.createIfMissing)
    const createIfMissing = async () => {
      const exists = await this.connection.jsm.streams.info(`KV_${name}`).then(
        () => true,
        (error: unknown) => {
          if (error instanceof JetStreamApiError && error.status === 404) return false;
          throw error;
        },
      );
      if (!exists) await declare();
    };
    topology.keep({ kind: 'bucket', name, declare: createIfMissing });
    return new KvBucket(kv, () => topology.redeclare('no_stream'));
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

function isWrongLastSequence(error: unknown): boolean {
  if (error instanceof JetStreamApiError) return error.code === 10071;
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

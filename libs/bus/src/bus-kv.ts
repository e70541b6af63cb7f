import { KvWatchInclude, Kvm, type KV } from '@nats-io/kv';
import { JetStreamApiError, StorageType } from '@nats-io/jetstream';
import type { BusConnection } from './bus-connection.js';

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
}

/** A JetStream KV bucket holding JSON values. */
export class KvBucket {
  private readonly encoder = new TextEncoder();

  constructor(private readonly kv: KV) {}

  /**
   * Writes `value` only if `key` has no value yet. 'exists' means someone (maybe an earlier life of this
   * process) already wrote it: the atomic "mark before acting" that makes an action happen at most once.
   */
  async createIfAbsent(key: string, value: unknown): Promise<'created' | 'exists'> {
    try {
      await this.kv.create(key, this.encoder.encode(JSON.stringify(value)));
      return 'created';
    } catch (error) {
      if (isWrongLastSequence(error)) return 'exists';
      throw error;
    }
  }

  async get<T>(key: string): Promise<KvEntry<T> | undefined> {
    const entry = await this.kv.get(key);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return { value: entry.json<T>(), revision: entry.revision };
  }

  async put(key: string, value: unknown): Promise<number> {
    return this.kv.put(key, this.encoder.encode(JSON.stringify(value)));
  }

  /** Compare-and-set: fails unless the key is still at `revision`. */
  async update(key: string, value: unknown, revision: number): Promise<number> {
    return this.kv.update(key, this.encoder.encode(JSON.stringify(value)), revision);
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
    await this.kv.purge(key);
  }
}

/** Opens (creating when absent) JetStream KV buckets. */
export class BusKv {
  constructor(private readonly connection: BusConnection) {}

  async bucket(name: string, options: KvBucketOptions = {}): Promise<KvBucket> {
    const kvm = new Kvm(this.connection.client);
    const kv = await kvm.create(name, {
      storage: options.storage === 'memory' ? StorageType.Memory : StorageType.File,
      history: options.history ?? 1,
      ...(options.maxAgeMs ? { ttl: options.maxAgeMs } : {}),
      ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
    });
    return new KvBucket(kv);
  }
}

function isWrongLastSequence(error: unknown): boolean {
  if (error instanceof JetStreamApiError) return error.code === 10071;
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

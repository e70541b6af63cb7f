import {
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type StoredMsg,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import type { JsonLogger } from '#observability';
import type { BusConnection } from './bus-connection.js';
import { isBusUnavailable } from './bus-unavailable.js';
import type { StreamIdentity } from './declared-topology.js';

/** The stream settings the gateway uses, in its own words (mapped onto JetStream's config). */
export interface StreamDefinition {
  name: string;
  subjects: string[];
  storage: 'file' | 'memory';
  /** 'workqueue': a message is removed once acknowledged (commands); 'limits': kept by the limits below. */
  retention?: 'limits' | 'workqueue';
  /** 1 makes a last-value stream: only the newest message per subject is kept. */
  maxMsgsPerSubject?: number;
  maxAgeMs?: number;
  /** Window within which a repeated `Nats-Msg-Id` is dropped (ms). */
  duplicateWindowMs?: number;
  /** Lets readers get a subject's last message with `$JS.API.DIRECT.GET` (any replica answers). */
  allowDirect?: boolean;
  /** Copies kept by a JetStream cluster (R3 for what must survive a node's death); 1 on a single server. */
  replicas?: number;
}

export interface StoredJson<T> {
  subject: string;
  seq: number;
  value: T;
  /** When the server stored it (epoch ms). */
  storedAt: number;
}

/**
 * How long a memory stream's reads go unanswered (while JetStream answers) before it is taken for lost with its
 * server: longer than a retry burst of one redeclaration pass, shorter than two topology checks (15 s apart).
 */
const OFFLINE_BEFORE_REPLACING_MS = 10_000;

/** JetStream stream definitions and reads that do not need a consumer. */
export class BusStreams {
  /** Memory streams found unanswered since (epoch ms), by name (see replaceIfOffline). */
  private readonly offlineSince = new Map<string, number>();

  constructor(
    private readonly connection: BusConnection,
    private readonly logger: JsonLogger,
  ) {}

  /**
   * Creates the stream, or brings an existing one to `definition` (idempotent; several processes may
   * call it at once). Settings JetStream cannot change in place (storage, retention) make it throw.
   * Kept in the connection's topology: declared again whenever the server may have lost it.
   */
  async ensureStream(definition: StreamDefinition): Promise<StreamInfo> {
    const info = await this.declare(definition);
    this.connection.topology.keep({
      kind: 'stream',
      name: definition.name,
      identity: identityOf(info),
      declare: () => this.createIfMissing(definition),
    });
    return info;
  }

  /**
   * A stream that captures `subject`: the one already there (another process's, e.g. another account's
   * connector: JetStream refuses two streams over one subject), else `definition`, created. Either way kept in
   * the topology as "something captures `subject`" — by the process that created it too: after the server lost
   * them, whichever process declares first creates its own and the others use it (each insisting on its own
   * would fail for ever on the overlap). Returns the name of the stream that captures it now.
   */
  async ensureCapturing(subject: string, definition: StreamDefinition): Promise<string> {
    let owner = await this.streamFor(subject);
    let found: StreamInfo | undefined;
    if (owner === undefined || owner === definition.name) {
      try {
        found = await this.declare(definition);
        owner = definition.name;
      } catch (error) {
        // another process created its stream over the subject between our look and our create (two connectors
        // of two accounts starting at once): JetStream refused ours as overlapping — that one captures it
        owner = await this.streamFor(subject);
        if (owner === undefined || owner === definition.name) throw error;
        found = await this.info(owner);
      }
    } else {
      found = await this.info(owner);
    }
    this.connection.topology.keep({
      kind: 'stream',
      name: definition.name,
      current: () => owner ?? definition.name,
      ...(found !== undefined ? { identity: identityOf(found) } : {}),
      declare: async () => {
        owner = await this.streamFor(subject);
        // ours: read it too — listed by the cluster's meta layer is not the same as served (a node gone with it)
        if (owner === definition.name) return this.createIfMissing(definition);
        if (owner !== undefined) {
          const theirs = await this.info(owner);
          return theirs && identityOf(theirs);
        }
        try {
          const created = await this.createIfMissing(definition);
          owner = definition.name;
          return created;
        } catch (error) {
          // the other process declared first, between our look and our create: its stream captures the subject
          owner = await this.streamFor(subject);
          if (owner === undefined || owner === definition.name) throw error;
          const theirs = await this.info(owner);
          return theirs && identityOf(theirs);
        }
      },
    });
    return owner;
  }

  /**
   * Declared again (DeclaredTopology): created only if the server says it does not exist — never updated, and
   * nothing sent but a read when it is there (on a cluster in failover, updates of every stream at each
   * reconnection disturbed the elections). A read that fails for another reason throws (retried later).
   * Resolves with the stream found or created (nothing when replaced: the next check reads the new one).
   */
  private async createIfMissing(definition: StreamDefinition): Promise<StreamIdentity | undefined> {
    let info: StreamInfo | undefined;
    try {
      info = await this.info(definition.name);
    } catch (error) {
      if (await this.replaceIfOffline(definition, error)) return undefined;
      throw error;
    }
    this.offlineSince.delete(definition.name);
    return identityOf(info ?? (await this.declare(definition)));
  }

  /**
   * A memory stream on one server dies with it, but a cluster's meta layer keeps listing it on the dead peer: it
   * is neither served nor "not found", so it would never be created again (outside tester: the prices stream gone
   * for the 2 min 22 s its node was down, last-value reads timing out, every check "ok"). When its reads go
   * unanswered while JetStream itself answers for OFFLINE_BEFORE_REPLACING_MS (two checks), it is deleted and created
   * again where a server can hold it. Only memory streams: their messages are gone with the server anyway, and
   * their owners publish them again (last values, the connector's status, the risk book's next admissions).
   * Resolves true once replaced; false when this is not that case (the caller rethrows).
   */
  private async replaceIfOffline(definition: StreamDefinition, error: unknown): Promise<boolean> {
    if (definition.storage !== 'memory' || !isBusUnavailable(error)) return false;
    const { jsm } = this.connection;
    try {
      await jsm.getAccountInfo(); // JetStream answers: the stream, not the cluster, is unreachable
    } catch {
      return false;
    }
    const since = this.offlineSince.get(definition.name) ?? Date.now();
    this.offlineSince.set(definition.name, since);
    const unansweredMs = Date.now() - since;
    if (unansweredMs < OFFLINE_BEFORE_REPLACING_MS) return false;
    this.logger.warn('memory stream unreachable while JetStream answers (its server gone): created again', {
      stream: definition.name,
      unansweredMs,
    });
    await jsm.streams.delete(definition.name).catch(() => undefined); // the meta layer drops it even unanswered
    await jsm.streams.add(toStreamConfig(definition));
    this.offlineSince.delete(definition.name);
    return true;
  }

  private async declare(definition: StreamDefinition): Promise<StreamInfo> {
    const { jsm } = this.connection;
    const config = toStreamConfig(definition);
    const existing = await this.info(definition.name);
    if (existing === undefined) {
      try {
        const created = await jsm.streams.add(config);
        this.logger.info('stream created', { stream: definition.name });
        return created;
      } catch (error) {
        if (!(error instanceof JetStreamApiError) || (await this.info(definition.name)) === undefined) throw error;
      }
    }
    const { name, storage: _storage, retention: _retention, ...changeable } = config;
    return jsm.streams.update(name, changeable);
  }

  /**
   * Every message the stream holds on `filterSubject` now, in order (see {@link readStreamJson}); with `since`
   * (epoch ms), only those stored since then.
   */
  readAll<T>(
    stream: string,
    filterSubject: string,
    each: (subject: string, value: T | undefined) => void,
    since?: number,
  ): Promise<void> {
    return readStreamJson(this.connection, stream, filterSubject, each, since);
  }

  /** The last message of each subject matching `filterSubject`, in one read (see {@link readStreamJson}). */
  readLastPerSubject<T>(
    stream: string,
    filterSubject: string,
    each: (subject: string, value: T | undefined) => void,
  ): Promise<void> {
    return readStreamJson(this.connection, stream, filterSubject, each, 'last-per-subject');
  }

  /**
   * Messages a durable consumer has still to finish: not yet delivered + delivered and not yet acknowledged
   * (for a work queue: what waits for its consumer). Throws when the consumer does not exist or JetStream is away.
   */
  async consumerBacklog(stream: string, durable: string): Promise<number> {
    const info = await this.connection.jsm.consumers.info(stream, durable);
    return info.num_pending + info.num_ack_pending;
  }

  /** The name of the stream that captures `subject`, if any. */
  async streamFor(subject: string): Promise<string | undefined> {
    try {
      return await this.connection.jsm.streams.find(subject);
    } catch {
      return undefined;
    }
  }

  /** The last message stored on `subject` (a last-value read), decoded as JSON, or undefined. */
  async lastMessage<T>(stream: string, subject: string): Promise<StoredJson<T> | undefined> {
    const stored = await this.lastStored(stream, subject);
    return (
      stored && { subject: stored.subject, seq: stored.seq, value: stored.json<T>(), storedAt: stored.time.getTime() }
    );
  }

  /**
   * The messages stored on `subject` after stream sequence `after`, in order, one request each (a few expected);
   * returns the sequence to expect next: the last one read, or the subject's last (0 if it holds none).
   */
  async readAfter<T>(
    stream: string,
    subject: string,
    after: number,
    each: (stored: StoredJson<T | undefined>) => void,
  ): Promise<number> {
    let cursor = after;
    for (;;) {
      const stored = await this.nextStored(stream, subject, cursor + 1);
      if (stored === undefined) break;
      cursor = stored.seq;
      each({
        subject: stored.subject,
        seq: stored.seq,
        value: jsonOrUndefined<T>(stored),
        storedAt: stored.time.getTime(),
      });
    }
    return cursor > after ? cursor : ((await this.lastStored(stream, subject))?.seq ?? 0);
  }

  /**
   * The messages stored on `subject` after stream sequence `after`, then each one stored later, in order, with
   * its sequence (an ordered consumer; the client re-creates it after a reconnect from where it was). Only what
   * the stream stored: a publication it refused (an expected last sequence not met) never comes here, as it
   * would to a core subscriber. If the consumer ends (the stream lost, say), it is opened again a second later
   * from the next sequence; a stream declared afresh is read from its start (a message may then come twice).
   */
  follow<T>(
    stream: string,
    subject: string,
    after: number,
    each: (stored: StoredJson<T | undefined>) => void,
  ): { stop(): void } {
    let stopped = false;
    let cursor = after;
    let current: { stop(): void; delete(): Promise<unknown> } | undefined;
    let failing = false; // one log line per episode, not one a second
    let created: string | undefined;
    const run = async (): Promise<void> => {
      while (!stopped) {
        try {
          const info = await this.info(stream);
          // a stream declared afresh (lost with its server) starts its sequence again: read it from its start
          if (created !== undefined && info !== undefined && info.created !== created) cursor = 0;
          if (info !== undefined) created = info.created;
          const consumer = await this.connection.js.consumers.get(stream, {
            filter_subjects: subject,
            opt_start_seq: cursor + 1,
          });
          const messages = await consumer.consume();
          // stopping the read leaves the server's consumer until its inactivity threshold (minutes): deleted too
          current = { stop: () => messages.stop(), delete: () => consumer.delete() };
          if (stopped) {
            messages.stop();
            await consumer.delete().catch(() => undefined);
          }
          // the stream (or the consumer) gone: the client waits on; this ends the read and opens it again
          void (async () => {
            for await (const status of messages.status()) {
              if (GONE.has(status.type)) messages.stop();
            }
          })().catch(() => undefined);
          if (failing) this.logger.info('following the stream again', { stream });
          failing = false;
          for await (const message of messages) {
            cursor = message.seq;
            const value = jsonOrUndefined<T>(message);
            each({ subject: message.subject, seq: message.seq, value, storedAt: message.info.timestampNanos / 1e6 });
          }
        } catch (error) {
          if (!failing) {
            this.logger.warn('following a stream failed; trying again every second', {
              stream,
              error: error instanceof Error ? error.message : String(error),
            });
          }
          failing = true;
        }
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, FOLLOW_RETRY_MS).unref());
      }
    };
    void run();
    return {
      stop: () => {
        if (stopped) return;
        stopped = true;
        current?.stop();
        current?.delete().catch(() => undefined);
      },
    };
  }

  private async nextStored(stream: string, subject: string, from: number): Promise<StoredMsg | undefined> {
    try {
      // STREAM.MSG.GET takes `next_by_subj` with `seq` (nats-server 2.9); the client's type names only `seq`
      const query = { seq: from, next_by_subj: subject } as { seq: number };
      return (await this.connection.jsm.streams.getMessage(stream, query)) ?? undefined;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  private async lastStored(stream: string, subject: string): Promise<StoredMsg | undefined> {
    try {
      return (await this.connection.jsm.streams.getMessage(stream, { last_by_subj: subject })) ?? undefined;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  private async info(name: string): Promise<StreamInfo | undefined> {
    try {
      return await this.connection.jsm.streams.info(name);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.status === 404) return undefined;
      throw error;
    }
  }
}

/**
 * Every message a stream holds on `filterSubject`, in order, read once with an ordered consumer (fast: no
 * acks) — how a process folds a stream back into its state at start. A body that is not JSON comes as
 * undefined: the reader says what it makes of it, and one bad message never stops the read. `since` (epoch
 * ms): only those stored since then; 'last-per-subject': only the last message of each subject (one read for
 * what many last-value reads would ask one at a time).
 */
export async function readStreamJson<T>(
  connection: BusConnection,
  stream: string,
  filterSubject: string,
  each: (subject: string, value: T | undefined) => void,
  since?: number | 'last-per-subject',
): Promise<void> {
  // One subject as a string: nats-server 2.9 takes a single filter.
  const consumer = await connection.js.consumers.get(stream, {
    filter_subjects: filterSubject,
    ...(since === 'last-per-subject'
      ? { deliver_policy: DeliverPolicy.LastPerSubject }
      : since !== undefined
        ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(since).toISOString() }
        : {}),
  });
  let pending = (await consumer.info()).num_pending;
  // In bounded batches: a batch that brings nothing ends the read (what `pending` counted may have aged out of
  // the stream meanwhile; a read waiting for it would never end).
  while (pending > 0) {
    const batch = await consumer.fetch({ max_messages: Math.min(pending, READ_BATCH), expires: READ_BATCH_WAIT_MS });
    let read = 0;
    for await (const message of batch) {
      read += 1;
      each(message.subject, jsonOrUndefined<T>(message));
      pending = message.info.pending;
    }
    if (read === 0) break;
  }
  await consumer.delete().catch(() => undefined); // else it lingers until its inactivity threshold
}

const READ_BATCH = 1_000;
const FOLLOW_RETRY_MS = 1_000;
/** Consumer notices that say the followed stream (or its consumer) is gone. */
const GONE = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);
const READ_BATCH_WAIT_MS = 2_000;

function jsonOrUndefined<T>(message: { json<V>(): V }): T | undefined {
  try {
    return message.json<T>();
  } catch {
    return undefined;
  }
}

const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

function identityOf(info: StreamInfo): StreamIdentity {
  const storage = info.config.storage === StorageType.Memory ? 'memory' : 'file';
  return { stream: info.config.name, created: info.created, storage };
}

function toStreamConfig(definition: StreamDefinition): Partial<StreamConfig> & { name: string } {
  const ms = 1_000_000; // JetStream durations are nanoseconds
  const maxAgeMs = definition.maxAgeMs ?? 0;
  // JetStream refuses a duplicate window longer than max age (its default window is 2 minutes)
  const duplicateWindowMs =
    definition.duplicateWindowMs ?? (maxAgeMs > 0 ? Math.min(maxAgeMs, DEFAULT_DUPLICATE_WINDOW_MS) : undefined);
  return {
    name: definition.name,
    subjects: definition.subjects,
    storage: definition.storage === 'memory' ? StorageType.Memory : StorageType.File,
    retention: definition.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: definition.maxMsgsPerSubject ?? -1,
    max_age: maxAgeMs * ms,
    ...(duplicateWindowMs !== undefined ? { duplicate_window: duplicateWindowMs * ms } : {}),
    ...(definition.allowDirect ? { allow_direct: true } : {}),
    ...(definition.replicas !== undefined ? { num_replicas: definition.replicas } : {}),
  };
}

/**
 * The execution app's streams and buckets (names from `ExecutionStreamName` in `libs/contracts`): the order
 * event stream algo services replay, and the KV buckets of the order journal, instance heartbeats and
 * per-strategy positions.
 */
import { ExecutionStreamName, type ExecutionSubjects } from '#contracts';
import type { BusKv, KvBucket } from './bus-kv.js';
import type { BusStreams, StreamDefinition } from './bus-streams.js';

export interface ExecutionTopologySettings {
  /** How long order events and journal records are kept (ms). */
  orderRetentionMs: number;
  /** JetStream duplicate window of the event stream (ms); at most the retention. */
  eventDuplicateWindowMs: number;
  replicas: number;
}

export interface ExecutionBuckets {
  journal: KvBucket;
  instances: KvBucket;
  positions: KvBucket;
}

export function executionStreams(subjects: ExecutionSubjects, settings: ExecutionTopologySettings): StreamDefinition[] {
  return [
    {
      name: ExecutionStreamName.orderEvents(subjects.account),
      subjects: [subjects.allOrderEvents],
      storage: 'file',
      maxAgeMs: settings.orderRetentionMs,
      duplicateWindowMs: settings.eventDuplicateWindowMs,
      replicas: settings.replicas,
    },
  ];
}

/** Creates or updates the event stream and opens (creating) the buckets. Idempotent; several instances may call it. */
export async function ensureExecutionTopology(
  streams: BusStreams,
  kv: BusKv,
  subjects: ExecutionSubjects,
  settings: ExecutionTopologySettings,
): Promise<ExecutionBuckets> {
  for (const definition of executionStreams(subjects, settings)) await streams.ensureStream(definition);
  const { account } = subjects;
  const durable = { storage: 'file' as const, replicas: settings.replicas };
  return {
    journal: await kv.bucket(ExecutionStreamName.orderJournal(account), {
      ...durable,
      maxAgeMs: settings.orderRetentionMs,
    }),
    instances: await kv.bucket(ExecutionStreamName.instances(account), durable),
    positions: await kv.bucket(ExecutionStreamName.positions(account), durable),
  };
}

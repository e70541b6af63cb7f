/**
 * The gateway's shared NATS topology: every stream, durable consumer and KV bucket that more than one app
 * uses — their names and their configurations — in one place. The connector declares them; the execution
 * and account-sync apps read and consume them by these names.
 */
import { StreamName, type Subjects } from '#contracts';
import type { BusStreams, StreamDefinition } from './bus-streams.js';

/** The connector's durable consumer of the order-command work queue (one connector per account). */
export const ORDER_COMMANDS_DURABLE = 'connector';

/** How long order recalls are kept: beyond the longest send deadline (10 min) and a quote's life (10 min). */
export const RECALL_RETENTION_MS = 20 * 60_000;

export interface ConnectorStreamSettings {
  outcomeDuplicateWindowMs: number;
  orderRetentionMs: number;
  priceMaxAgeMs: number;
  statusMaxAgeMs: number;
  /** Replicas of the durable streams (commands, outcomes) on a cluster; the last-value ones stay R1. */
  replicas?: number;
}

/**
 * The JetStream streams of one account's connector:
 *  - prices: memory, one message per subject — a late joiner reads the last price of a subject at once;
 *    entries age out (`priceMaxAgeMs`, at most a quote's life), so a crashed connector's quote cannot linger;
 *  - connector status: the same, for the one status subject, readable by direct get; it ages out after three
 *    missed status intervals, so a dead connector's last status does not stay "open";
 *  - order commands: file, work queue — a command is removed once the connector acknowledged it;
 *  - order outcomes: file, deduplicated by `Nats-Msg-Id` = clientRequestId:status; with them the contradictions
 *    of a published final outcome (`order.contradiction.{clientRequestId}`, spec-gaps K7);
 *  - order recalls: file, kept beyond any command's send deadline (`RECALL_RETENTION_MS`) — a connector that was
 *    down when a halt recalled orders reads them back at start, before it takes a command.
 */
export function connectorStreams(subjects: Subjects, settings: ConnectorStreamSettings): StreamDefinition[] {
  const { account } = subjects;
  return [
    {
      name: StreamName.prices(account),
      subjects: [subjects.allPrices],
      storage: 'memory',
      maxMsgsPerSubject: 1,
      maxAgeMs: settings.priceMaxAgeMs,
      allowDirect: true,
    },
    {
      name: StreamName.connectorStatus(account),
      subjects: [subjects.connectorStatus],
      storage: 'memory',
      maxMsgsPerSubject: 1,
      maxAgeMs: settings.statusMaxAgeMs,
      allowDirect: true,
    },
    {
      name: StreamName.orderCommands(account),
      subjects: [subjects.orderCommand],
      storage: 'file',
      retention: 'workqueue',
      duplicateWindowMs: settings.outcomeDuplicateWindowMs,
      replicas: settings.replicas ?? 1,
    },
    {
      name: StreamName.orderOutcomes(account),
      subjects: [subjects.allOrderOutcomes, subjects.allOrderContradictions],
      storage: 'file',
      maxAgeMs: settings.orderRetentionMs,
      duplicateWindowMs: settings.outcomeDuplicateWindowMs,
      replicas: settings.replicas ?? 1,
    },
    {
      name: StreamName.orderRecalls(account),
      subjects: [subjects.orderRecall],
      storage: 'file',
      maxAgeMs: RECALL_RETENTION_MS,
      replicas: settings.replicas ?? 1,
    },
  ];
}

/**
 * Creates or updates the streams. Price subjects are not account-scoped (account groups are), so with
 * several accounts on one NATS the first connector's price stream captures every account's prices: a
 * second connector finds it and does not define an overlapping one — and creates its own should the server
 * lose that one (`BusStreams.ensureCapturing`). Returns the price stream's name.
 */
export async function ensureConnectorStreams(
  streams: BusStreams,
  subjects: Subjects,
  settings: ConnectorStreamSettings,
): Promise<{ priceStream: string }> {
  let priceStream = StreamName.prices(subjects.account);
  for (const definition of connectorStreams(subjects, settings)) {
    if (definition.name === priceStream) priceStream = await streams.ensureCapturing(subjects.allPrices, definition);
    else await streams.ensureStream(definition);
  }
  return { priceStream };
}

export const BucketName = {
  /** Order marks: one key per clientRequestId ever sent by this account's connector. */
  orderMarks: (account: string) => `GW_ORDER_MARKS_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /** The venue subscriptions the account's connector was granted, by tag: a restart ends those left streaming. */
  venueSubscriptions: (account: string) => `GW_VENUE_SUBSCRIPTIONS_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /**
   * The price subjects the account's connector publishes as a stream's life (live or stale, not yet `stopped`): a
   * restart after a crash finds those its dead predecessor left live and publishes `stopped` on them.
   */
  priceSubjects: (account: string) => `GW_PRICE_SUBJECTS_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /** account-sync's single-writer leases: one key per account (docs/account-sync.md#one-writer-per-account). */
  accountSyncLeases: 'GW_ACCOUNT_SYNC_LEASES',
} as const;

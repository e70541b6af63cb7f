/**
 * The account-sync app's money-movement streams — transaction legs and withdrawal requests — and the
 * append-with-compare-and-set that makes each of them a durable, deduplicated ledger:
 *
 *  - transactions: file stream of `…acct.transaction.changed.{uuid}`; every message is one (uuid, state)
 *    (`Nats-Msg-Id` = `uuid:state`), and the last message of a subject is that transaction's current state;
 *    an append names the subject's last sequence it saw, so two writers cannot both move one transaction;
 *  - withdrawals: the same for `…acct.withdrawal.changed.{requestId}`, and a KV bucket of the requests
 *    (intent written before anything is sent to the venue; the key is created once, ever).
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import { TransactionSubjects, WithdrawalSubjects } from '#contracts';
import type { BusConnection } from './bus-connection.js';
import type { StreamDefinition } from './bus-streams.js';
import { PublishAcks } from './publish-acks.js';

function accountToken(account: string): string {
  return account.replace(/[^A-Za-z0-9_-]/g, '_');
}

export const AccountLedgerName = {
  transactions: (account: string) => `GW_ACCT_TRANSACTIONS_${accountToken(account)}`,
  withdrawalEvents: (account: string) => `GW_ACCT_WITHDRAWALS_${accountToken(account)}`,
  withdrawalRequests: (account: string) => `GW_ACCT_WITHDRAWAL_REQUESTS_${accountToken(account)}`,
} as const;

export interface AccountLedgerSettings {
  /** Window within which a repeated `Nats-Msg-Id` is dropped (ms). */
  duplicateWindowMs: number;
  /** How long events are kept (ms); 0 keeps them. Transactions need the state of every uuid the venue may resend. */
  retentionMs: number;
  replicas?: number;
}

export function accountLedgerStreams(
  prefix: string,
  account: string,
  settings: AccountLedgerSettings,
): StreamDefinition[] {
  const common = {
    storage: 'file' as const,
    duplicateWindowMs: settings.duplicateWindowMs,
    allowDirect: true,
    replicas: settings.replicas ?? 1,
    ...(settings.retentionMs > 0 ? { maxAgeMs: settings.retentionMs } : {}),
  };
  return [
    {
      name: AccountLedgerName.transactions(account),
      subjects: [new TransactionSubjects(prefix, account).allChanged],
      ...common,
    },
    {
      name: AccountLedgerName.withdrawalEvents(account),
      subjects: [new WithdrawalSubjects(prefix, account).allChanged],
      ...common,
    },
  ];
}

export type LedgerAppend =
  | { kind: 'stored'; seq: number }
  /** Same `Nats-Msg-Id` already stored (an earlier attempt whose answer was lost, or a replay). */
  | { kind: 'duplicate'; seq: number }
  /** The subject moved on since `expectedLastSeq`: read it again and decide again. */
  | { kind: 'moved' };

export interface LedgerEntry<T> {
  seq: number;
  value: T;
}

const WRONG_LAST_SEQUENCE = 10071;

/** Appends to and reads the last entry of per-subject ledgers on a stream. */
export class SubjectLedger {
  private readonly encoder = new TextEncoder();
  private readonly acks: PublishAcks;

  constructor(
    private readonly connection: BusConnection,
    private readonly stream: string,
  ) {
    this.acks = new PublishAcks(connection);
  }

  /**
   * Stores `json` on `subject` if the subject's last sequence is still `expectedLastSeq` (0: no message yet).
   * A lost acknowledgement is retried with the same msgId, so it is stored once. Throws when NATS cannot
   * store it (the caller answers "not stored").
   */
  async append(
    subject: string,
    json: string,
    msgId: string,
    expectedLastSeq: number,
    options: { ackTimeoutMs?: number; attempts?: number } = {},
  ): Promise<LedgerAppend> {
    const payload = this.encoder.encode(json);
    const attempts = options.attempts ?? 3;
    let lastError: unknown;
    const fields = {
      'Nats-Msg-Id': msgId,
      'Nats-Expected-Last-Subject-Sequence': String(expectedLastSeq),
      'Nats-Expected-Stream': this.stream,
    };
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        const ack = await this.acks.publish(subject, payload, fields, options.ackTimeoutMs ?? 2_000);
        if (ack.error !== undefined) {
          if (ack.error.err_code === WRONG_LAST_SEQUENCE) return { kind: 'moved' };
          lastError = new Error(`JetStream refused the append: ${ack.error.description ?? 'unknown error'}`);
          continue;
        }
        if (typeof ack.seq !== 'number') {
          lastError = new Error('PubAck without a sequence');
          continue;
        }
        return ack.duplicate === true ? { kind: 'duplicate', seq: ack.seq } : { kind: 'stored', seq: ack.seq };
      } catch (error) {
        lastError = error;
      }
    }
    throw new LedgerUnavailableError(lastError);
  }

  /** The subject's last entry, or undefined when it has none. */
  async last<T>(subject: string): Promise<LedgerEntry<T> | undefined> {
    try {
      const stored = await this.connection.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      if (stored === null) return undefined;
      return { seq: stored.seq, value: stored.json<T>() };
    } catch (error) {
      if (error instanceof JetStreamApiError && (error.status === 404 || error.code === 10037)) return undefined;
      throw new LedgerUnavailableError(error);
    }
  }
}

export class LedgerUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`ledger unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'LedgerUnavailableError';
  }
}

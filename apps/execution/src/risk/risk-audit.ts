/**
 * The audit trail of risk control: every change of a trading state or of limits (who, when, why, before,
 * after) is a record on a JetStream stream of its own, file-stored and deduplicated by the record's id.
 */
import { randomUUID } from 'node:crypto';
import { riskSubjects, RiskStreamName, type RiskAuditKind, type RiskAuditRecord, type Subjects } from '#contracts';
import type { BusPublisher, BusStreams } from '#bus';

export interface RiskAuditOptions {
  /** How long audit records are kept (ms; 0 = for ever). */
  retentionMs: number;
  replicas: number;
  instance: string;
}

export class RiskAudit {
  private readonly subjects: ReturnType<typeof riskSubjects>;

  constructor(
    private readonly publisher: BusPublisher,
    private readonly streams: BusStreams,
    private readonly natsSubjects: Subjects,
    private readonly options: RiskAuditOptions,
  ) {
    this.subjects = riskSubjects(natsSubjects);
  }

  get streamName(): string {
    return RiskStreamName.audit(this.natsSubjects.account);
  }

  async ensureStream(): Promise<void> {
    await this.streams.ensureStream({
      name: this.streamName,
      subjects: [this.subjects.allAudit],
      storage: 'file',
      maxAgeMs: this.options.retentionMs,
      replicas: this.options.replicas,
    });
  }

  newId(): string {
    return randomUUID();
  }

  /** Stores the record (retried with the same id, so a lost ack cannot store it twice); throws if it cannot. */
  async record(record: Omit<RiskAuditRecord, 'v' | 'instance'>): Promise<RiskAuditRecord> {
    const full: RiskAuditRecord = { v: 1, ...record, instance: this.options.instance };
    await this.publisher.publishDurable(this.subjects.audit(record.kind as RiskAuditKind), full, {
      msgId: `risk-audit:${record.id}`,
      kind: `risk.audit.${record.kind}`,
    });
    return full;
  }
}

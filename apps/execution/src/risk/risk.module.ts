/**
 * Pre-trade risk as a Nest module: provides `RISK_GATE` (the risk actor), and at bootstrap reads the trading
 * states and run-time limits from NATS KV, applies the configured kill switch, and answers the control
 * subjects. Until the store has been read every order is refused (fail closed). Requires ObservabilityModule
 * and BusModule (both global).
 */
import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { hostname } from 'node:os';
import { RiskBucketName, riskSubjects, Subjects } from '#contracts';
import { BusConnection, BusKv, BusPublisher, BusResponder, BusStreams } from '#bus';
import { systemClock, type Clock } from '#actors';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { loadLimitsFile } from './limits-file.js';
import { RISK_GATE } from './risk-gate.js';
import { RiskAudit } from './risk-audit.js';
import { RiskControl } from './risk-control.js';
import { RiskEngine } from './risk-engine.js';
import { RiskMetrics } from './risk-metrics.js';
import { RiskStore } from './risk-store.js';

export interface RiskModuleOptions {
  subjectPrefix: string;
  account: string;
  /** Path of the limits file (JSON); absent: no limits beyond the quote checks and trading states. */
  limitsFile?: string;
  /** `TRADING_KILL_SWITCH=true`: global HALTED is written (and audited) at start. */
  killSwitch: boolean;
  /** Replicas of the audit stream and the state bucket (3 on a JetStream cluster). */
  replicas?: number;
  /** How long audit records are kept (ms); default 365 days. */
  auditRetentionMs?: number;
  /** Names this instance in audit records; default host:pid. */
  instance?: string;
  clock?: Clock;
}

const RISK_OPTIONS = Symbol('RISK_OPTIONS');

@Injectable()
class RiskLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private store: RiskStore | undefined;
  private control: RiskControl | undefined;

  constructor(
    @Inject(RISK_OPTIONS) private readonly options: RiskModuleOptions,
    @Inject(RiskEngine) private readonly engine: RiskEngine,
    @Inject(RiskMetrics) private readonly metrics: RiskMetrics,
    @Inject(BusConnection) private readonly connection: BusConnection,
    @Inject(BusKv) private readonly kv: BusKv,
    @Inject(BusPublisher) private readonly publisher: BusPublisher,
    @Inject(BusResponder) private readonly responder: BusResponder,
    @Inject(BusStreams) private readonly streams: BusStreams,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(JsonLogger) private readonly rootLogger: JsonLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { options } = this;
    const logger = this.rootLogger.child('Risk');
    const clock = options.clock ?? systemClock;
    const subjects = new Subjects(options.subjectPrefix, options.account);
    const audit = new RiskAudit(this.publisher, this.streams, subjects, {
      retentionMs: options.auditRetentionMs ?? 365 * 24 * 3_600_000,
      replicas: options.replicas ?? 1,
      instance: options.instance ?? `${hostname()}:${process.pid}`,
    });
    await audit.ensureStream();
    const bucket = await this.kv.bucket(RiskBucketName.control(options.account), {
      storage: 'file',
      history: 10,
      ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
    });
    const store = new RiskStore(bucket, this.engine, { connection: this.connection, clock, logger });
    this.store = store;
    const control = new RiskControl({ engine: this.engine, store, audit, clock, logger, metrics: this.metrics });
    this.control = control;
    await store.start();
    if (options.killSwitch) {
      const answer = await control.setState(
        { scope: 'global', state: 'HALTED', by: 'configuration', reason: 'TRADING_KILL_SWITCH=true at start-up' },
        'config',
      );
      if (!answer.ok) throw new Error(`the kill switch could not be applied: ${answer.error.code}`);
    }
    control.serve(this.responder, subjects);
    this.health.register('risk', () => {
      const { states } = this.engine.state;
      if (!states.readable) return { up: false, detail: 'trading states cannot be read (orders refused)' };
      const global = states.entries.get('global')?.state ?? 'ACTIVE';
      return { up: true, detail: `global ${global}` };
    });
    logger.info('pre-trade risk ready', {
      controlSubjects: Object.values(riskSubjects(subjects)).filter((s) => typeof s === 'string'),
      killSwitch: options.killSwitch,
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.control?.stop();
    await this.store?.stop();
  }
}

@Module({})
export class RiskModule {
  /** Reads and validates the limits file at once: a bad file stops the app before anything starts. */
  static forRoot(options: RiskModuleOptions): DynamicModule {
    const limits = loadLimitsFile(options.limitsFile);
    return {
      module: RiskModule,
      providers: [
        { provide: RISK_OPTIONS, useValue: options },
        {
          provide: RiskMetrics,
          useFactory: (registry: MetricsRegistry) => new RiskMetrics(registry),
          inject: [MetricsRegistry],
        },
        {
          provide: RiskEngine,
          useFactory: (metrics: RiskMetrics, logger: JsonLogger) =>
            new RiskEngine(limits, { clock: options.clock ?? systemClock, metrics, logger: logger.child('Risk') }),
          inject: [RiskMetrics, JsonLogger],
        },
        { provide: RISK_GATE, useExisting: RiskEngine },
        RiskLifecycle,
      ],
      exports: [RISK_GATE, RiskEngine],
    };
  }
}

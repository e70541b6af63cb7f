/**
 * Pre-trade risk's start and stop, outside Nest so it is tested as it runs: ensure the audit stream, open the
 * store bucket, read it and watch it (orders are refused until then: fail closed), apply the configured kill
 * switch, then answer the control subjects.
 */
import { hostname } from 'node:os';
import {
  RISK_AUDIT_KINDS,
  RiskBucketName,
  RiskStreamName,
  riskSubjects,
  Subjects,
  type AccountGroupsReply,
} from '#contracts';
import { BusCore, BusKv, BusPublisher, BusResponder, BusStreams, type BusConnection, type BusMetrics } from '#bus';
import { systemClock, type Clock } from '#actors';
import type { HealthRegistry, JsonLogger } from '#observability';
import { AccountGroupCheck } from './account-group-check.js';
import { RiskAudit } from './risk-audit.js';
import { RiskBookSync } from './risk-book-sync.js';
import { RiskControl } from './risk-control.js';
import type { RiskEngine } from './risk-engine.js';
import type { RiskMetrics } from './risk-metrics.js';
import { RiskPositionsStore } from './risk-positions.js';
import { RiskStore } from './risk-store.js';
import type { KnownControls } from './store-loss.js';

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
  /** How long a change naming an account group waits for the connector's list (ms); default 2 s. */
  accountGroupCheckMs?: number;
  clock?: Clock;
}

export interface RiskRuntimeDeps {
  engine: RiskEngine;
  connection: Pick<BusConnection, 'isUp'>;
  core: BusCore;
  kv: BusKv;
  publisher: BusPublisher;
  responder: BusResponder;
  streams: BusStreams;
  logger: JsonLogger;
  metrics?: RiskMetrics;
  health?: HealthRegistry;
}

/** The runtime on one bus connection, its bus parts made here (specs and the bench; the app injects them). */
export function riskRuntimeOn(
  connection: BusConnection,
  busMetrics: BusMetrics,
  options: RiskModuleOptions,
  parts: Pick<RiskRuntimeDeps, 'engine' | 'logger' | 'metrics' | 'health'>,
): RiskRuntime {
  const { logger } = parts;
  return new RiskRuntime(options, {
    ...parts,
    connection,
    core: new BusCore(connection, logger),
    kv: new BusKv(connection),
    publisher: new BusPublisher(connection, busMetrics, logger),
    responder: new BusResponder(connection, busMetrics, logger),
    streams: new BusStreams(connection, logger),
  });
}

export class RiskRuntime {
  private store: RiskStore | undefined;
  private sync: RiskBookSync | undefined;
  private controlHandle: RiskControl | undefined;

  constructor(
    private readonly options: RiskModuleOptions,
    private readonly deps: RiskRuntimeDeps,
  ) {}

  /** The control (for tests and the app): set states and limits as the NATS subjects do. */
  get control(): RiskControl | undefined {
    return this.controlHandle;
  }

  async start(): Promise<void> {
    const { options, deps } = this;
    const { engine, logger } = deps;
    const clock = options.clock ?? systemClock;
    const subjects = new Subjects(options.subjectPrefix, options.account);
    const instance = options.instance ?? `${hostname()}:${process.pid}`;
    const audit = new RiskAudit(deps.publisher, deps.streams, subjects, {
      retentionMs: options.auditRetentionMs ?? 365 * 24 * 3_600_000,
      replicas: options.replicas ?? 1,
      instance,
    });
    await audit.ensureStream();
    deps.publisher.declareDurableKinds(['risk.book', ...RISK_AUDIT_KINDS.map((kind) => `risk.audit.${kind}`)]);
    const replicas = options.replicas !== undefined ? { replicas: options.replicas } : {};
    const openBucket = () =>
      deps.kv.bucket(RiskBucketName.control(options.account), { storage: 'file', history: 10, ...replicas });
    const positions = new RiskPositionsStore(
      () => deps.kv.bucket(RiskBucketName.positions(options.account), { storage: 'file', ...replicas }),
      logger,
    );
    engine.positionsLoaded(await positions.load(), positions);
    // then (the loaded positions replace the book's): orders other instances admit from now on are counted here too
    this.sync = new RiskBookSync(
      {
        core: deps.core,
        publisher: deps.publisher,
        streams: deps.streams,
        stream: RiskStreamName.book(options.account),
        clock,
        engine,
        instance,
        logger,
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
      },
      subjects,
    );
    await this.sync.declare();
    this.sync.start();
    await this.sync.readBack();
    // the control writes back what was known when the store is found lost (it is made below, before the store starts)
    const restore = (known: KnownControls) => {
      if (this.controlHandle === undefined) throw new Error('risk control not ready');
      return this.controlHandle.restoreAfterLoss(known);
    };
    const store = new RiskStore(openBucket, engine, { connection: deps.connection, clock, logger, restore });
    this.store = store;
    const accountGroups = new AccountGroupCheck(
      async () => {
        const reply = await deps.core.request<AccountGroupsReply>(
          subjects.accountGroups,
          {},
          options.accountGroupCheckMs ?? 2_000,
        );
        if (!reply.ok) throw new Error(`${reply.error.code} ${reply.error.message}`);
        return reply.accountGroups.map((group) => group.uuid);
      },
      () => clock.now(),
    );
    const control = new RiskControl({
      engine,
      store,
      audit,
      clock,
      logger,
      accountGroups,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    });
    this.controlHandle = control;
    await store.start();
    if (options.killSwitch) {
      const answer = await control.setState(
        { scope: 'global', state: 'HALTED', by: 'configuration', reason: 'TRADING_KILL_SWITCH=true at start-up' },
        'config',
      );
      if (!answer.ok) throw new Error(`the kill switch could not be applied: ${answer.error.code}`);
    }
    control.serve(deps.responder, subjects);
    deps.health?.register('risk', () => {
      const { states } = engine.state;
      if (!states.readable) return { up: false, detail: 'trading states cannot be read (orders refused)' };
      return { up: true, detail: `global ${states.entries.get('global')?.state ?? 'ACTIVE'}` };
    });
    const s = riskSubjects(subjects);
    logger.info('pre-trade risk ready', {
      control: [s.stateGet, s.stateSet, s.kill, s.limitsGet, s.limitsSet],
      killSwitch: options.killSwitch,
    });
  }

  async stop(): Promise<void> {
    this.controlHandle?.stop();
    this.sync?.stop();
    await this.store?.stop();
  }
}

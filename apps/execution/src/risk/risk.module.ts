/**
 * Pre-trade risk as a Nest module: provides `RISK_GATE` (the risk actor) and runs `RiskRuntime` (store, kill
 * switch, control subjects) at bootstrap. Until the store has been read every order is refused (fail closed).
 * Requires ObservabilityModule and BusModule (both global).
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { BusConnection, BusCore, BusKv, BusPublisher, BusResponder, BusStreams } from '#bus';
import { systemClock } from '#actors';
import { HealthRegistry, JsonLogger, lifecycleOf, MetricsRegistry } from '#observability';
import { loadLimitsFile } from './limits-file.js';
import { RISK_GATE } from './risk-gate.js';
import { RiskEngine } from './risk-engine.js';
import { RiskMetrics } from './risk-metrics.js';
import { RiskRuntime, type RiskModuleOptions } from './risk-runtime.js';

export type { RiskModuleOptions } from './risk-runtime.js';

@Module({})
export class RiskModule {
  /** Reads and validates the limits file at once: a bad file stops the app before anything starts. */
  static forRoot(options: RiskModuleOptions): DynamicModule {
    const limits = loadLimitsFile(options.limitsFile);
    return {
      module: RiskModule,
      providers: [
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
        {
          provide: RiskRuntime,
          useFactory: (
            engine: RiskEngine,
            metrics: RiskMetrics,
            connection: BusConnection,
            kv: BusKv,
            publisher: BusPublisher,
            responder: BusResponder,
            streams: BusStreams,
            health: HealthRegistry,
            logger: JsonLogger,
          ) =>
            new RiskRuntime(options, {
              engine,
              metrics,
              connection,
              core: new BusCore(connection, logger.child('bus')),
              kv,
              publisher,
              responder,
              streams,
              health,
              logger: logger.child('Risk'),
            }),
          inject: [
            RiskEngine,
            RiskMetrics,
            BusConnection,
            BusKv,
            BusPublisher,
            BusResponder,
            BusStreams,
            HealthRegistry,
            JsonLogger,
          ],
        },
        lifecycleOf(RiskRuntime),
      ],
      exports: [RISK_GATE, RiskEngine],
    };
  }
}

import { type DynamicModule, Global, Module } from '@nestjs/common';
import { HealthRegistry } from './health-registry.js';
import { JsonLogger } from './json-logger.js';
import { MetricsRegistry } from './metrics-registry.js';
import { ObservabilityController } from './observability.controller.js';
import { StartupProgress } from './startup-progress.js';

export interface ObservabilityOptions {
  app: string;
  /** Process-level default metrics (CPU, heap, event loop); off in tests that start several apps. */
  defaultMetrics?: boolean;
  healthTimeoutMs?: number;
  /** This start-up attempt's progress (`startNestApp` makes it): its step is what /health says while starting. */
  startup?: StartupProgress;
}

/**
 * GET /health and GET /metrics, plus the app's MetricsRegistry, HealthRegistry, JsonLogger and StartupProgress as
 * providers.
 */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(options: ObservabilityOptions): DynamicModule {
    return {
      module: ObservabilityModule,
      controllers: [ObservabilityController],
      providers: [
        { provide: MetricsRegistry, useValue: new MetricsRegistry(options.app, options) },
        { provide: HealthRegistry, useValue: new HealthRegistry(options.healthTimeoutMs) },
        { provide: JsonLogger, useValue: new JsonLogger(options.app) },
        { provide: StartupProgress, useValue: options.startup ?? new StartupProgress() },
      ],
      exports: [MetricsRegistry, HealthRegistry, JsonLogger, StartupProgress],
    };
  }
}

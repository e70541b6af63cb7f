import type { DynamicModule } from '@nestjs/common';
import { ObservabilityModule, type ServiceEnv, type StartupProgress } from '#observability';
import { BusModule } from './bus.module.js';

/** The variables `serviceModules` reads (ServiceEnv and `withNatsEnv` declare them). */
export type ServiceModulesConfig = Pick<ServiceEnv, 'DEFAULT_METRICS'> & { NATS_URL: string; ACCOUNT: string };

/**
 * The modules every app of the gateway starts with: /health, /metrics and the logger named for `app`, then
 * one NATS connection to `NATS_URL`, shown by the server as `{app}-{ACCOUNT}` unless `connectionName` says
 * otherwise (an app with several instances per account names each). `startup` is the start-up attempt's progress
 * (`startNestApp` hands it to the app's module): /health names the step it is in.
 */
export function serviceModules(
  app: string,
  config: ServiceModulesConfig,
  connectionName: string = `${app}-${config.ACCOUNT}`,
  startup?: StartupProgress,
): DynamicModule[] {
  return [
    ObservabilityModule.forRoot({ app, defaultMetrics: config.DEFAULT_METRICS, ...(startup ? { startup } : {}) }),
    BusModule.forRootAsync({ useFactory: () => ({ servers: config.NATS_URL.split(','), name: connectionName }) }),
  ];
}

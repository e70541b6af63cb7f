/**
 * The variables every app of the gateway reads the same way, in one place: where /health and /metrics
 * listen, the log level, process metrics. An app's config class extends `ServiceEnv` through the mixins of
 * the libraries whose variables it reads (`withNatsEnv` of #bus, `withVenueCredentialsEnv` of #venue-api)
 * and states its own `HTTP_PORT` default. The rules (env-rules.ts) are inherited: `loadConfig` checks them
 * on the subclass, and a subclass re-declaring a field keeps the rule and changes only the default.
 */
import { EnvBoolean, EnvEnum, EnvHost, EnvPort } from './env-rules.js';
import { LOG_LEVELS, type LogLevel } from './json-logger.js';

/**
 * A config class a group of variables can be mixed into. TypeScript accepts a class as a mixin's base only
 * when its construct signature takes `...args: any[]`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EnvClass<T extends object = object> = abstract new (...args: any[]) => T;

export abstract class ServiceEnv {
  // ---- HTTP (/health, /metrics)
  /** 0 = any free port (said explicitly; empty is refused). Each app states its own default. */
  @EnvPort() abstract HTTP_PORT: number;
  @EnvHost() HTTP_HOST: string = '0.0.0.0';

  // ---- Logs
  @EnvEnum(LOG_LEVELS) LOG_LEVEL: LogLevel = 'info';

  // ---- Process
  /** Process-level metrics (CPU, heap, event loop); off when several apps share a process (tests). */
  @EnvBoolean() DEFAULT_METRICS: boolean = true;
}

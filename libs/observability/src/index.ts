export { redact, forLog, isSecretKey, REDACTED, MAX_LOG_ITEMS, MAX_LOG_STRING } from './redact.js';
export { JsonLogger, LOG_LEVELS, type LogLevel, type LogSink } from './json-logger.js';
export { MetricsRegistry } from './metrics-registry.js';
export { HealthRegistry, type HealthCheck, type HealthCheckResult, type HealthReport } from './health-registry.js';
export { ObservabilityModule, type ObservabilityOptions } from './observability.module.js';
export { loadConfig, ConfigError, exitOnConfigError, type CrossChecked, type CrossRule } from './config.js';
export { refuseUnusableListens, type ListenSetting } from './listen-check.js';
export { EXIT_CODE } from './exit-codes.js';
export { ServiceEnv, type EnvClass } from './service-env.js';
export { lifecycleOf, type StartStop } from './lifecycle.js';
export {
  directoryUsable,
  EnvRequired,
  EnvBoolean,
  EnvEnum,
  EnvInt,
  EnvMs,
  EnvPort,
  EnvHost,
  EnvText,
  EnvUrl,
  MAX_TIMER_MS,
  type UrlRule,
} from './env-rules.js';
export { stopOnSignals, type StopOnSignalsOptions } from './signals.js';
export { shutdownRequested, StartAbortedError, unlessShutdown } from './shutdown-request.js';
export { serveStartingHealth, type StartingHealth } from './starting-health.js';
export {
  runApp,
  startNestApp,
  type AppDefinition,
  type AppModuleFactory,
  type NestAppOptions,
  type RunningApp,
} from './run-app.js';
export { StartupProgress, STARTUP_STEP_MAX, WAITING_FOR_NATS } from './startup-progress.js';
export {
  decideStartFailure,
  StartCleanupError,
  START_RETRY_FIRST_MS,
  START_RETRY_MAX_MS,
  type StartFailureAction,
} from './start-retry.js';
export { LogThrottle } from './log-throttle.js';

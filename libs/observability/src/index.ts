export { redact, forLog, isSecretKey, REDACTED, MAX_LOG_ITEMS, MAX_LOG_STRING } from './redact.js';
export { JsonLogger, type LogLevel, type LogSink } from './json-logger.js';
export { MetricsRegistry } from './metrics-registry.js';
export { HealthRegistry, type HealthCheck, type HealthCheckResult, type HealthReport } from './health-registry.js';
export { ObservabilityModule, type ObservabilityOptions } from './observability.module.js';
export { loadConfig, ConfigError } from './config.js';
export { stopOnSignals, type StopOnSignalsOptions } from './signals.js';

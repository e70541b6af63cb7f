/** `npm run start:execution`: the order API for algo services (configuration: docs/execution.md). */
import 'reflect-metadata';
import { isBusUnavailable } from '#bus';
import { runApp } from '#observability';
import { startExecution } from './bootstrap.js';
import { ExecutionConfig } from './config.js';

void runApp({
  transient: isBusUnavailable,
  name: 'execution',
  config: ExecutionConfig,
  docs: 'docs/execution.md#configuration',
  start: (config, logger) => startExecution(config, { logger }),
  describe: (config, running) => ({ account: config.ACCOUNT, instance: running.runtime.instanceId }),
});

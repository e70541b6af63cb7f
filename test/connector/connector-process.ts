/**
 * The connector from `dist/` as its own process (test/kit/app-process.ts), as in production, beside the suite's
 * nats-server and sandbox: for scenarios that kill it or watch it exit.
 */
import { freePort, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { AppProcess } from '../kit/app-process.js';
import { connectorEnv } from './connector-stack.js';

/** runApp's line once HTTP listens and signals are taken. */
export const CONNECTOR_READY = 'connector started';

/**
 * Starts a connector (a free HTTP port, `info` logs, `overrides` on connectorEnv) and waits until it says it
 * started. It goes into `started` first, so a suite's cleanup stops it even when it never got ready.
 */
export async function startConnectorProcess(
  nats: NatsServerHandle,
  venue: RunningSandbox,
  started: AppProcess[],
  overrides: Record<string, string> = {},
): Promise<AppProcess> {
  const env = connectorEnv(nats, venue, { HTTP_PORT: String(await freePort()), LOG_LEVEL: 'info', ...overrides });
  const app = AppProcess.start('connector', env);
  started.push(app);
  await app.waitForLine(CONNECTOR_READY);
  return app;
}

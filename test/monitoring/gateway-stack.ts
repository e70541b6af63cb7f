/**
 * The whole gateway on one nats-server for the monitoring proof: the connector stack (sandbox venue posting
 * real webhooks, connector in-process), account-sync and one execution instance as child processes from
 * `dist/` (the sandbox's order pacing is measured on the test process's event loop: the fewer apps share it,
 * the truer the venue's 250 ms order gap). Every app listens on a fixed free port, so Prometheus scrapes the same target after
 * a restart of the app or of NATS.
 */
import { freePort } from '#testing';
import type { SandboxOptions } from '../../apps/sandbox-venue/src/config.js';
import { ACCOUNT, startConnectorStack, type ConnectorStack } from '../connector/connector-stack.js';
import { ExecutionInstance, FAST_EXECUTION_ENV } from '../execution/execution-stack.js';
import { AppProcess } from '../kit/app-process.js';

/** account-sync as a child process: its /health and /metrics address, and a clean stop (SIGTERM). */
export interface AccountSyncProcess {
  httpUrl: string;
  process: AppProcess;
  close(): Promise<void>;
}

export async function startAccountSyncProcess(env: Record<string, string>): Promise<AccountSyncProcess> {
  const child = AppProcess.start('account-sync', env);
  try {
    const line = await Promise.race([
      child.waitForLine('"context":"main","msg":"account-sync started"', 30_000),
      child.exited.then((exit) => {
        throw new Error(`account-sync exited at start (${JSON.stringify(exit)}): ${child.lines.slice(-5).join('\n')}`);
      }),
    ]);
    const httpUrl = /"http":"([^"]+)"/.exec(line)?.[1];
    if (httpUrl === undefined) throw new Error(`no http address in: ${line}`);
    return {
      httpUrl,
      process: child,
      async close() {
        child.signal('SIGTERM');
        const exit = await Promise.race([
          child.exited,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000).unref()),
        ]);
        if (exit === undefined) await child.stop();
      },
    };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

export interface GatewayStack extends ConnectorStack {
  /** The running account-sync (a new process after `restartAccountSync`, on the same ports). */
  accountSync: AccountSyncProcess;
  /** The running execution instance (a new process after `restartExecution`, on the same port). */
  execution: ExecutionInstance;
  /** Stops account-sync (SIGTERM), runs `beforeStart`, and starts it again with its environment and `overrides`. */
  restartAccountSync(overrides?: Record<string, string>, beforeStart?: () => Promise<void>): Promise<void>;
  /** Stops the execution instance (SIGTERM) and starts it again with its environment and `overrides`. */
  restartExecution(overrides?: Record<string, string>): Promise<void>;
  /** The address of account-sync's webhook receiver the venue posts to. */
  webhookUrl: string;
  /** Prometheus job name (deploy/prometheus/prometheus.yml) → `host:port` of that app's /metrics. */
  targets(): Record<string, string>;
}

export async function startGatewayStack(options: {
  venue?: SandboxOptions;
  connectorEnv?: Record<string, string>;
  accountSyncEnv?: Record<string, string>;
  executionEnv?: Record<string, string>;
}): Promise<GatewayStack> {
  const webhookPort = await freePort();
  const webhookUrl = `http://127.0.0.1:${webhookPort}/webhooks/venue`;
  const stack = await startConnectorStack({
    env: { HTTP_PORT: String(await freePort()), ...options.connectorEnv },
    venue: { webhookUrl, webhookMinIntervalMs: 0, webhookBackoffScale: 0.002, ...options.venue },
  });
  const venueEnv = {
    HTTP_HOST: '127.0.0.1',
    NATS_URL: stack.nats.url,
    ACCOUNT,
    VENUE_REST_URL: stack.venue.restBaseUrl,
    VENUE_API_KEY: stack.venue.credentials.primary.apiKey,
    VENUE_API_SECRET: stack.venue.credentials.primary.apiSecret,
    DEFAULT_METRICS: 'false',
  };
  let accountSync: AccountSyncProcess | undefined;
  const accountSyncEnv = {
    ...venueEnv,
    HTTP_PORT: String(await freePort()),
    VENUE_WEBHOOK_IPS_URL: stack.venue.ipsUrl,
    WEBHOOK_PORT: String(webhookPort),
    WEBHOOK_HOST: '127.0.0.1',
    WEBHOOK_IPS_REFRESH_MS: '1000',
    WITHDRAWAL_POLL_MS: '200',
    WITHDRAWAL_UNKNOWN_SETTLE_MS: '1000',
    // info at least: the start is seen in the "started" line
    LOG_LEVEL: process.env['E2E_LOG_LEVEL'] ?? 'info',
    ...options.accountSyncEnv,
  };
  const executionEnv = {
    ...venueEnv,
    HTTP_PORT: String(await freePort()),
    INSTANCE_ID: 'exec-prom',
    ...FAST_EXECUTION_ENV,
    // info at least: the start is seen in the "started" line
    LOG_LEVEL: process.env['E2E_LOG_LEVEL'] ?? 'info',
    ...options.executionEnv,
  };
  try {
    accountSync = await startAccountSyncProcess(accountSyncEnv);
    const execution = await ExecutionInstance.start(executionEnv);
    const connectorStop = stack.stop.bind(stack);
    const gateway: GatewayStack = Object.assign(stack, {
      accountSync,
      execution,
      webhookUrl,
      targets: () => ({
        connector: new URL(stack.connector.httpUrl).host,
        execution: new URL(gateway.execution.httpUrl).host,
        'account-sync': new URL(gateway.accountSync.httpUrl).host,
      }),
      async restartAccountSync(overrides: Record<string, string> = {}, beforeStart?: () => Promise<void>) {
        await gateway.accountSync.close();
        await beforeStart?.();
        gateway.accountSync = await startAccountSyncProcess({ ...accountSyncEnv, ...overrides });
      },
      async restartExecution(overrides: Record<string, string> = {}) {
        await gateway.execution.close();
        gateway.execution = await ExecutionInstance.start({ ...executionEnv, ...overrides });
      },
      async stop() {
        await gateway.execution.close().catch(() => undefined);
        await gateway.accountSync.close().catch(() => undefined);
        await connectorStop();
      },
    });
    return gateway;
  } catch (error) {
    await accountSync?.close().catch(() => undefined);
    await stack.stop();
    throw error;
  }
}

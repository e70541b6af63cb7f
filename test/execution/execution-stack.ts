/**
 * The execution app end to end: its own nats-server, the sandbox venue, the real connector (in-process) and
 * execution instances as child processes from `dist/` (so a test can `kill -9` one). The algo in these tests
 * is a plain NATS client.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import {
  ExecutionStreamName,
  ExecutionSubjects,
  Subjects,
  type GetOrderReply,
  type OrderAccepted,
  type ListOrdersReply,
  type OrderEvent,
  type PlaceOrderReply,
  type PositionsReply,
} from '#contracts';
import { JsonLogger, loadConfig } from '#observability';
import { eventually, startStack, type Stack } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import type { SandboxOptions } from '../../apps/sandbox-venue/src/config.js';
import { startConnector, type RunningConnector } from '../../apps/connector/src/bootstrap.js';
import { ConnectorConfig } from '../../apps/connector/src/config.js';
import { AppProcess, type AppExit } from '../kit/app-process.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { connectorEnv } from '../connector/connector-stack.js';

process.env['LOG_LEVEL'] ??= process.env['E2E_LOG_LEVEL'] ?? 'error';

export const ACCOUNT = 'acct1';
export const subjects = new Subjects('gw.v1', ACCOUNT);
export const exec = new ExecutionSubjects(subjects);
const quiet = new JsonLogger('connector', 'e2e', (process.env['E2E_LOG_LEVEL'] as 'debug' | undefined) ?? 'error');

/** One execution instance as a child process. */
export class ExecutionInstance {
  private constructor(
    readonly process: AppProcess,
    readonly httpUrl: string,
    readonly instanceId: string,
  ) {}

  static async start(env: Record<string, string>): Promise<ExecutionInstance> {
    const child = AppProcess.start('execution', env);
    let line: string;
    try {
      line = await Promise.race([
        child.waitForLine('"context":"main","msg":"execution started"', 30_000),
        child.exited.then((exit) => {
          throw new Error(`execution exited at start (${JSON.stringify(exit)}): ${child.lines.slice(-5).join('\n')}`);
        }),
      ]);
    } catch (error) {
      await child.stop();
      throw error;
    }
    const http = /"http":"([^"]+)"/.exec(line)?.[1];
    if (http === undefined) throw new Error(`no http address in: ${line}`);
    return new ExecutionInstance(child, http, env['INSTANCE_ID'] ?? '');
  }

  /** SIGTERM and wait for the exit (undefined: it did not exit within 15 s and was killed). */
  async close(): Promise<AppExit | undefined> {
    this.process.signal('SIGTERM');
    const exit = await Promise.race([
      this.process.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000).unref()),
    ]);
    if (exit === undefined) await this.process.stop();
    return exit;
  }

  /** For a test's failure message: reconciliation counters and the last log lines naming the order. */
  async diagnosis(orderId: string): Promise<string> {
    const metrics = await fetch(`${this.httpUrl}/metrics`)
      .then((response) => response.text())
      .then((text) => text.split('\n').filter((line) => line.startsWith('execution_reconciliation_attempts_total')))
      .catch((error: unknown) => [`metrics unreadable: ${String(error)}`]);
    const lines = this.process.lines.filter(
      (line) => line.includes(orderId) || line.includes('"level":"error"') || line.includes('venue record read failed'),
    );
    return [`instance ${this.instanceId}:`, ...metrics, ...lines.slice(-30)].join('\n  ');
  }

  /** kill -9. */
  async kill(): Promise<void> {
    await this.process.stop();
  }
}

export interface ExecutionStack {
  stack: Stack<RunningSandbox, { connector: RunningConnector }>;
  venue: RunningSandbox;
  algo: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The execution environment for an instance (INSTANCE_ID and overrides given). */
  env(instanceId: string, overrides?: Record<string, string>): Record<string, string>;
  instances: ExecutionInstance[];
  startInstance(instanceId: string, overrides?: Record<string, string>): Promise<ExecutionInstance>;
  stop(): Promise<void>;
}

/** Execution's leases and reconciliation timings cut to what a test can wait for. */
export const FAST_EXECUTION_ENV = {
  INSTANCE_LEASE_MS: '1500',
  OWNERSHIP_SWEEP_MS: '300',
  VENUE_CHECK_AFTER_MS: '1000',
  RECONCILE_INITIAL_MS: '300',
  RECONCILE_MAX_MS: '1000',
  NOT_EXECUTED_GRACE_MS: '500',
} as const;

export async function startExecutionStack(
  options: {
    venue?: SandboxOptions;
    connectorEnv?: Record<string, string>;
    executionEnv?: Record<string, string>;
  } = {},
): Promise<ExecutionStack> {
  const stack = await startStack({
    venue: () =>
      startE2eVenue({
        ...options.venue,
        trading: { priceIntervalMs: 100, offContractEveryNTicks: 0, ...options.venue?.trading },
      }),
    apps: {
      connector: ({ nats, venue }) =>
        startConnector(loadConfig(ConnectorConfig, connectorEnv(nats, venue, options.connectorEnv)), { logger: quiet }),
    },
  });
  const algo = await connect({
    servers: stack.nats.url,
    name: 'e2e-algo',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 100,
  });
  const env = (instanceId: string, overrides: Record<string, string> = {}): Record<string, string> => ({
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    NATS_URL: stack.nats.url,
    ACCOUNT,
    VENUE_REST_URL: stack.venue.restBaseUrl,
    VENUE_API_KEY: stack.venue.credentials.primary.apiKey,
    VENUE_API_SECRET: stack.venue.credentials.primary.apiSecret,
    INSTANCE_ID: instanceId,
    ...FAST_EXECUTION_ENV,
    DEFAULT_METRICS: 'false',
    // info at least: the test waits for runApp's "started" line (the output stays in the child's buffer);
    // debug: each order's reconciliation steps, which a final-event timeout prints (finalEvents)
    LOG_LEVEL: process.env['E2E_EXEC_LOG_LEVEL'] ?? 'debug',
    ...options.executionEnv,
    ...overrides,
  });
  const instances: ExecutionInstance[] = [];
  const executionStack: ExecutionStack = {
    stack,
    venue: stack.venue,
    algo,
    js: jetstream(algo),
    jsm: await jetstreamManager(algo),
    env,
    instances,
    async startInstance(instanceId, overrides) {
      const instance = await ExecutionInstance.start(env(instanceId, overrides));
      instances.push(instance);
      return instance;
    },
    async stop() {
      for (const instance of instances) await instance.kill().catch(() => undefined);
      await algo.close();
      await stack.stop();
    },
  };
  return executionStack;
}

export function accepted(reply: PlaceOrderReply): OrderAccepted {
  if (!reply.ok) throw new Error(`order refused: ${JSON.stringify(reply.error)}`);
  return reply;
}

export const finals = (events: OrderEvent[]): OrderEvent[] => events.filter((e) => e.order.final);

export async function place(
  algo: NatsConnection,
  request: Record<string, unknown>,
  timeoutMs = 15_000,
): Promise<PlaceOrderReply> {
  const reply = await algo.request(exec.place, JSON.stringify(request), { timeout: timeoutMs });
  return reply.json<PlaceOrderReply>();
}

/** Places an order that must be accepted and waits for its final event: the reply and every event of the order. */
export async function placeToFinal(
  stack: Pick<ExecutionStack, 'algo' | 'js'> & Partial<Pick<ExecutionStack, 'instances'>>,
  request: Record<string, unknown> & { strategyId: string },
  timeoutMs?: number,
): Promise<{ reply: OrderAccepted; events: OrderEvent[] }> {
  const reply = accepted(await place(stack.algo, request));
  return {
    reply,
    events: await finalEvents(stack.js, request.strategyId, reply.orderId, timeoutMs, stack.instances ?? []),
  };
}

export async function getOrder(algo: NatsConnection, request: Record<string, unknown>): Promise<GetOrderReply> {
  return (await algo.request(exec.get, JSON.stringify(request), { timeout: 10_000 })).json<GetOrderReply>();
}

export async function listOrders(
  algo: NatsConnection,
  request: Record<string, unknown> = {},
): Promise<ListOrdersReply> {
  return (await algo.request(exec.list, JSON.stringify(request), { timeout: 10_000 })).json<ListOrdersReply>();
}

export async function positionsOf(algo: NatsConnection, strategyId: string): Promise<PositionsReply> {
  return (
    await algo.request(exec.positions, JSON.stringify({ strategyId }), { timeout: 10_000 })
  ).json<PositionsReply>();
}

/** Every event stored for one order, in stream order (a consumer replaying it, as an algo would). */
export function orderEvents(js: JetStreamClient, strategyId: string, orderId: string): Promise<OrderEvent[]> {
  return eventsOn(js, exec.orderEvent(strategyId, orderId));
}

/** Every event the stream holds of the strategy's orders. */
export function strategyEvents(js: JetStreamClient, strategyId: string): Promise<OrderEvent[]> {
  return eventsOn(js, exec.strategyEvents(strategyId));
}

async function eventsOn(js: JetStreamClient, subject: string): Promise<OrderEvent[]> {
  const consumer = await js.consumers.get(ExecutionStreamName.orderEvents(ACCOUNT), {
    filter_subjects: subject, // one subject: nats-server 2.9 takes no list
  });
  const events: OrderEvent[] = [];
  const info = await consumer.info(true);
  let left = info.num_pending;
  while (left > 0) {
    const batch = await consumer.fetch({ max_messages: left, expires: 2_000 });
    let got = 0;
    for await (const msg of batch) {
      events.push(msg.json<OrderEvent>());
      got += 1;
    }
    if (got === 0) break;
    left -= got;
  }
  return events;
}

/**
 * Waits for the order's final event; returns every event of the order. On a timeout the error also tells, of
 * each instance in `witnesses`, its reconciliation counters and its log lines about the order.
 */
export async function finalEvents(
  js: JetStreamClient,
  strategyId: string,
  orderId: string,
  timeoutMs = 20_000,
  witnesses: readonly ExecutionInstance[] = [],
): Promise<OrderEvent[]> {
  // What was seen last, for the message of a timeout: the states so far, or why the events could not be read.
  let seen = 'no read yet';
  return eventually(
    async () => {
      // JetStream may not answer for a moment (a restarted nats-server): read again
      const events = await orderEvents(js, strategyId, orderId).catch((error: unknown) => {
        seen = `events unreadable: ${String(error)}`;
        return undefined;
      });
      if (events === undefined) return undefined;
      seen = `states so far: ${events.map((e) => e.order.state).join(' → ') || 'none'}`;
      return events.some((e) => e.order.final) ? events : undefined;
    },
    { what: `final event of ${orderId}`, timeoutMs, intervalMs: 100 },
  ).catch(async (error: unknown) => {
    const told = await Promise.all(witnesses.map((instance) => instance.diagnosis(orderId)));
    throw new Error([`${String(error)} (${seen})`, ...told].join('\n'));
  });
}

export async function adminPost(
  venue: RunningSandbox,
  path: string,
  body: unknown = {},
  method = 'POST',
): Promise<unknown> {
  const res = await fetch(`${venue.adminUrl}/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

export { metricValue } from '../connector/connector-stack.js';

/**
 * Outside tester (rolling restarts, F2/F5): nats-server restarted while execution was still starting made it exit
 * 75, and nothing started it again by hand. Now the cut-off attempt is stopped and execution starts again in its
 * own process once NATS is back; /health names the step it is in (never "waiting for NATS" while connected).
 * A real execution process and a real nats-server, stopped mid-start (FAULT_START_PAUSE_MS holds a step open)
 * and started again on the same store and port.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ExecutionSubjects, Subjects } from '#contracts';
import { freePort, startNatsServer, type NatsServerHandle } from '#testing';
import { AppProcess } from '../kit/app-process.js';

const ACCOUNT = 'acct1';
const exec = new ExecutionSubjects(new Subjects('gw.v1', ACCOUNT));
const STARTED = '"context":"main","msg":"execution started"';
const LOAD_MS = 90_000; // module loading alone takes tens of seconds on a loaded machine

interface Health {
  status: number;
  startup?: { up: boolean; detail?: string };
}

async function health(port: number): Promise<Health> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  const body = (await response.json()) as { checks?: { startup?: Health['startup'] } };
  return { status: response.status, ...(body.checks?.startup ? { startup: body.checks.startup } : {}) };
}

describe('execution whose start-up NATS cuts off (nats-server restarted meanwhile)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanup.length > 0) await (cleanup.pop() as () => Promise<unknown>)().catch(() => undefined);
  });

  async function startMidway(): Promise<{ nats: NatsServerHandle; app: AppProcess; httpPort: number }> {
    const nats = await startNatsServer();
    cleanup.push(() => nats.stop());
    const httpPort = await freePort();
    const app = AppProcess.start('execution', {
      HTTP_PORT: String(httpPort),
      HTTP_HOST: '127.0.0.1',
      NATS_URL: nats.url,
      ACCOUNT,
      VENUE_REST_URL: 'http://127.0.0.1:9/api',
      VENUE_API_KEY: 'key',
      VENUE_API_SECRET: 'c2VjcmV0',
      INSTANCE_ID: 'exec-cut',
      DEFAULT_METRICS: 'false',
      LOG_LEVEL: 'info',
      FAULT_START_PAUSE_MS: '4000',
    });
    cleanup.push(() => app.stop());
    await app.waitForLine('start-up paused (FAULT_START_PAUSE_MS', LOAD_MS);
    return { nats, app, httpPort };
  }

  it('stops the cut-off attempt, starts again once NATS is back on the same store and port, and serves', async () => {
    const { nats, app, httpPort } = await startMidway();
    // connected, streams declared, a later step running: /health names it (F5), not "waiting for NATS"
    expect(await health(httpPort)).toEqual({
      status: 503,
      startup: { up: false, detail: 'following prices and the connector' },
    });

    await nats.stop({ keepStore: true });
    await app.waitForLine('start-up cut off: NATS became unavailable', 60_000);
    expect((await health(httpPort)).status).toBe(503); // the port answers all along
    await app.waitForLine('waiting for NATS: not reachable yet', 30_000);
    const again = await startNatsServer({ port: nats.port, storeDir: nats.storeDir });
    cleanup.push(() => again.stop());

    await app.waitForLine(STARTED, LOAD_MS);
    const algo: NatsConnection = await connect({ servers: again.url });
    cleanup.push(() => algo.close());
    const reply = (await algo.request(exec.list, JSON.stringify({ strategyId: 'nobody' }), { timeout: 10_000 })).json<{
      ok: boolean;
    }>();
    expect(reply.ok).toBe(true);
    expect((await health(httpPort)).startup).toBeUndefined(); // the app's own /health now
    expect(app.lines.filter((line) => line.includes(STARTED))).toHaveLength(1);
    expect(app.lines.filter((line) => line.includes('failed to start'))).toEqual([]);
    // one attempt running: one answer per request (a second, leaked subscription would answer too)
    const inbox = algo.subscribe('_INBOX.cut-check.>');
    const answers: unknown[] = [];
    void (async () => {
      for await (const message of inbox) answers.push(message.data);
    })();
    algo.publish(exec.list, JSON.stringify({ strategyId: 'nobody' }), { reply: '_INBOX.cut-check.1' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(answers).toHaveLength(1);

    app.signal('SIGTERM');
    expect((await app.exited).code).toBe(0);
  }, 300_000);

  it('a SIGTERM while it waits for NATS to come back still stops it cleanly, exit 0', async () => {
    const { nats, app } = await startMidway();
    await nats.stop({ keepStore: true });
    await app.waitForLine('start-up cut off: NATS became unavailable', 60_000);
    app.signal('SIGTERM');
    expect((await app.exited).code).toBe(0);
    expect(app.lines.some((line) => line.includes('execution stopped during start-up'))).toBe(true);
  }, 300_000);
});

/**
 * Issue 7, symptom 3: after a restart (kill -9 or SIGTERM), with a `>` subscriber on the bus (a tap, a
 * monitor), a newly published order command must reach the venue at once — not wait out the ack wait
 * behind pull requests the previous process left at the server (nats-server 2.9 still sees interest in
 * their reply subjects). The connector runs as a real child process; the latency is printed, the test
 * asserts that no command was delivered to a dead pull request (the consumer redelivered nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { StreamName, type OrderOutcome } from '#contracts';
import { freePort, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { AppProcess } from '../kit/app-process.js';
import { ACCOUNT, connectorEnv, subjects } from './connector-stack.js';

const READY = 'connector started'; // runApp's line: HTTP listening, signals taken

describe('connector restart → first order, with a > subscriber present', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let tap: Subscription;
  let env: Record<string, string>;
  let app: AppProcess;

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } });
    env = connectorEnv(nats, venue, {
      HTTP_PORT: String(await freePort()),
      ORDER_COMMAND_ACK_WAIT_MS: '30000', // the default: a command stuck behind a dead pull waits this long
      LOG_LEVEL: 'info',
    });
    strategy = await connect({ servers: nats.url });
    js = jetstream(strategy);
    jsm = await jetstreamManager(strategy);
    tap = strategy.subscribe('>', { callback: () => undefined });
    app = AppProcess.start('connector', env);
    await app.waitForLine(READY);
  });

  afterAll(async () => {
    tap?.unsubscribe();
    await app?.stop();
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  async function orderReachesVenue(clientRequestId: string): Promise<{ ms: number; outcome: OrderOutcome }> {
    const outcomes = strategy.subscribe(subjects.orderOutcome(clientRequestId), { max: 1 });
    const started = performance.now();
    // An unknown quote: the venue answers FAILED RFS100019 at once (W20), proof that the order got there.
    await js.publish(subjects.orderCommand, JSON.stringify({ clientRequestId, quoteId: 'q-unknown', side: 'BUY' }), {
      msgID: clientRequestId,
    });
    for await (const msg of outcomes) return { ms: performance.now() - started, outcome: msg.json<OrderOutcome>() };
    throw new Error(`no outcome for ${clientRequestId}`);
  }

  it('reaches the venue at once after kill -9 and after SIGTERM (median and max printed)', async () => {
    await orderReachesVenue('warm-up'); // the first life holds pull requests, as in production
    const latencies: number[] = [];
    const restarts: NodeJS.Signals[] = ['SIGKILL', 'SIGTERM', 'SIGKILL', 'SIGTERM'];
    for (const [index, signal] of restarts.entries()) {
      app.signal(signal);
      await app.exited;
      app = AppProcess.start('connector', env);
      await app.waitForLine(READY);
      const { ms, outcome } = await orderReachesVenue(`after-restart-${index}`);
      latencies.push(ms);
      expect(outcome).toMatchObject({ status: 'FAILED', code: 'RFS100019', source: 'reply' });
      const consumer = await jsm.consumers.info(StreamName.orderCommands(ACCOUNT), 'connector');
      expect(consumer.num_redelivered).toBe(0); // nothing went to a dead process's pull request
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = ((sorted[1] ?? 0) + (sorted[2] ?? 0)) / 2;
    console.log(
      `restart → order at the venue over ${latencies.length} restarts: median ${median.toFixed(0)} ms, ` +
        `max ${Math.max(...latencies).toFixed(0)} ms (${latencies.map((ms) => ms.toFixed(0)).join(', ')})`,
    );
  }, 180_000);
});

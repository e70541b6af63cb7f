/**
 * `gw status` on a connector whose venue session is not open (outside tester: with a wrong API secret it printed
 * "backoff since <a few seconds ago>", moving at every retry, no sign of the 401): it says how long the session has
 * been down, whether it was ever open, and the last failure to open it — and exits 1, 0 once the session is open.
 * The connector's status is published here as the connector publishes it (its last-value stream, declared as the
 * connector declares it): no venue or app is needed to show what `gw` makes of it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BusConnection, BusMetrics, BusStreams, ensureConnectorStreams } from '#bus';
import { Subjects, type ConnectorStatus } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';

const run = promisify(execFile);
const GW = join(process.cwd(), 'bin/gw.js');
const silent = new JsonLogger('gw-status-test', 'test', 'error', { write: () => undefined });

describe('gw status with the venue session down', () => {
  let nats: NatsServerHandle;
  let connection: BusConnection;
  const subjects = new Subjects('gw.v1', 'default');

  beforeAll(async () => {
    nats = await startNatsServer();
    connection = await BusConnection.open(
      { servers: nats.url, name: 'gw-status-test' },
      new BusMetrics(new MetricsRegistry('t', { defaultMetrics: false })),
      new HealthRegistry(),
      silent,
    );
    await ensureConnectorStreams(new BusStreams(connection, silent), subjects, {
      outcomeDuplicateWindowMs: 60_000,
      priceMaxAgeMs: 600_000,
      statusMaxAgeMs: 600_000,
      orderRetentionMs: 3_600_000,
    });
  });
  afterAll(async () => {
    await connection?.close();
    await nats?.stop();
  });

  async function status(published: ConnectorStatus): Promise<{ code: number; stdout: string }> {
    await connection.js.publish(subjects.connectorStatus, JSON.stringify(published));
    return run(process.execPath, [GW, 'status', '--nats', nats.url], { encoding: 'utf8', timeout: 30_000 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
  }

  it('never open since start (a wrong secret): how long, the 401, exit 1; open: exit 0', async () => {
    const now = Date.now();
    const base: ConnectorStatus = {
      v: 1,
      account: 'default',
      sessionState: 'backoff',
      since: now - 2_000,
      reconnects: 0,
      subscriptions: { live: 0, stale: 0, pending: 1 },
      orderQueuePaceMs: 300,
      publishedAt: now,
    };
    const down = await status({
      ...base,
      notOpenSince: now - 192_000,
      everOpen: false,
      lastFailure: { code: 'token-refused', reason: 'HTTP 401', at: now - 2_100 },
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(
      /^connector \(account default\): session backoff, down for \d+m\d\ds, never open since the connector started \(last failure (?:\d+m)?\d+s ago: token refused, HTTP 401\), 0 reconnects$/m,
    );

    const open = await status({ ...base, sessionState: 'open', since: now - 1_000, everOpen: true });
    expect(open.code).toBe(0);
    expect(open.stdout).toMatch(/^connector \(account default\): session open since \S+Z, 0 reconnects$/m);
  });
});

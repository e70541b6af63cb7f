/**
 * Issue 7, symptom 7: operators are told the truth. With NATS unreachable at start-up the connector says
 * what it waits for and its port answers /health 503 meanwhile; with a wrong secret (the session cycles
 * fetchingToken → backoff forever) /health degrades once the session has not been open for the grace.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { StreamName, type ConnectorStatus } from '#contracts';
import { eventually, freePort, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { AppProcess } from '../kit/app-process.js';
import { ACCOUNT, connectorEnv, subjects } from './connector-stack.js';

interface HealthAnswer {
  status: number;
  body: { status?: string; checks?: Record<string, { up: boolean; detail?: string }> };
}

async function health(port: string): Promise<HealthAnswer | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    return { status: response.status, body: (await response.json()) as HealthAnswer['body'] };
  } catch {
    return undefined; // nothing listening
  }
}

describe('connector /health tells the truth', () => {
  let venue: RunningSandbox;
  const apps: AppProcess[] = [];
  const servers: NatsServerHandle[] = [];

  beforeAll(async () => {
    venue = await startE2eVenue({ trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } });
  });

  afterAll(async () => {
    for (const app of apps) await app.stop();
    for (const server of servers) await server.stop();
    await venue?.close();
  });

  it('while NATS is unreachable at start-up: logs that it waits, /health 503; healthy once NATS is up', async () => {
    const natsPort = await freePort();
    const httpPort = String(await freePort());
    const unreachable = { url: `nats://127.0.0.1:${natsPort}` } as NatsServerHandle;
    const app = AppProcess.start(
      'connector',
      connectorEnv(unreachable, venue, { HTTP_PORT: httpPort, LOG_LEVEL: 'info', VENUE_SESSION_ID: 'health-1' }),
    );
    apps.push(app);
    await app.waitForLine('connecting to NATS');
    const waiting = await eventually(() => health(httpPort), { what: '/health answering while NATS is down' });
    expect(waiting.status).toBe(503);
    expect(waiting.body.checks?.['startup']).toEqual({ up: false, detail: 'waiting for NATS' });
    expect(app.lines.join('\n')).toContain(`nats://127.0.0.1:${natsPort}`);

    servers.push(await startNatsServer({ port: natsPort }));
    const healthy = await eventually(
      async () => {
        const answer = await health(httpPort);
        return answer?.status === 200 ? answer : undefined;
      },
      { what: '/health 200 once NATS and the venue are up', timeoutMs: 20_000 },
    );
    expect(healthy.body.checks?.['nats']?.up).toBe(true);
  });

  it('SIGTERM while still waiting for NATS at start-up: stops at once, exit 0 (it held nothing)', async () => {
    const unreachable = { url: `nats://127.0.0.1:${await freePort()}` } as NatsServerHandle;
    const app = AppProcess.start(
      'connector',
      connectorEnv(unreachable, venue, {
        HTTP_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        VENUE_SESSION_ID: 'health-3',
      }),
    );
    apps.push(app);
    await app.waitForLine('connecting to NATS');
    app.signal('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.lines.join('\n')).toContain('stopped during start-up');
  });

  it('with a wrong secret, degrades after the grace and stays down while the session keeps retrying', async () => {
    const nats = await startNatsServer();
    servers.push(nats);
    const httpPort = String(await freePort());
    const app = AppProcess.start(
      'connector',
      connectorEnv(nats, venue, {
        HTTP_PORT: httpPort,
        VENUE_SESSION_ID: 'health-2',
        VENUE_API_SECRET: Buffer.from('not the secret').toString('base64'),
        SESSION_HEALTH_GRACE_MS: '1000',
        VENUE_RECONNECT_INITIAL_MS: '100',
        VENUE_RECONNECT_MAX_MS: '200',
      }),
    );
    apps.push(app);
    const down = await eventually(
      async () => {
        const answer = await health(httpPort);
        return answer?.status === 503 && answer.body.checks?.['venue-session'] !== undefined ? answer : undefined;
      },
      { what: '/health 503 for the venue session', timeoutMs: 15_000 },
    );
    expect(down.body.checks?.['venue-session']?.up).toBe(false);
    // why, for the operator, once the first token request was refused (never the secret)
    const why = await eventually(
      async () => {
        const detail = (await health(httpPort))?.body.checks?.['venue-session']?.detail;
        return detail?.includes('last failure') === true ? detail : undefined;
      },
      { what: 'the venue session check saying why', timeoutMs: 15_000 },
    );
    expect(why).toMatch(/not open yet .*; last failure: token fetch: /);
    // and which settings make the signature the venue refused (outside tester: a bare "unauthorized")
    expect(why).toMatch(/check VENUE_API_KEY, VENUE_API_SECRET, VENUE_SIGNATURE_ENCODING/);
    // Many retries later (each state young), it is still down: the grace counts from the last open.
    for (let i = 0; i < 10; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect((await health(httpPort))?.status).toBe(503);
    }
    // Its status says the same to `gw status` and execution: down since it started, never open, the 401 as a code
    // (outside tester: "backoff since" a few seconds ago at every look, no sign of the 401)
    const strategy = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(strategy);
      const last = async () =>
        (
          await jsm.streams
            .getMessage(StreamName.connectorStatus(ACCOUNT), { last_by_subj: subjects.connectorStatus })
            .catch(() => null)
        )?.json<ConnectorStatus>();
      const first = await eventually(
        async () => {
          const status = await last();
          return status?.lastFailure !== undefined ? status : undefined;
        },
        { what: 'a status with the last failure', timeoutMs: 15_000 },
      );
      expect(first).toMatchObject({ everOpen: false, lastFailure: { code: 'token-refused', reason: 'HTTP 401' } });
      expect(first.sessionState).not.toBe('open');
      const later = await eventually(
        async () => {
          const status = await last();
          return status !== undefined && status.since > first.since ? status : undefined;
        },
        { what: 'a status of a later retry', timeoutMs: 15_000 },
      );
      expect(later.notOpenSince).toBe(first.notOpenSince); // its latest state moved on; the outage did not
      expect(later.notOpenSince).toBeLessThanOrEqual(first.since);
      expect(JSON.stringify(later)).not.toContain('not the secret');
    } finally {
      await strategy.close();
    }
  });

  it('two connectors on one VENUE_SESSION_ID take the session from each other: both /health 503 "contested", counted', async () => {
    const nats = await startNatsServer();
    servers.push(nats);
    const ports = [String(await freePort()), String(await freePort())];
    const duel = ports.map((port, i) =>
      AppProcess.start(
        'connector',
        connectorEnv(nats, venue, {
          HTTP_PORT: port,
          ACCOUNT: `duel${i}`,
          VENUE_SESSION_ID: 'health-duel',
          VENUE_RECONNECT_INITIAL_MS: '100',
          VENUE_RECONNECT_MAX_MS: '300',
        }),
      ),
    );
    apps.push(...duel);
    // A duellist that died (it failed to start) leaves no duel to see: said at once, not after the wait's bound.
    const exits: string[] = [];
    duel.forEach((app, i) => {
      void app.exited.then((exit) =>
        exits.push(`duel${i} exited ${JSON.stringify(exit)}: ${app.lines.slice(-3).join('\n')}`),
      );
    });
    try {
      for (const port of ports) {
        const contested = await eventually(
          async () => {
            if (exits.length > 0) throw new Error(exits.join('\n'));
            const answer = await health(port);
            const detail = answer?.body.checks?.['venue-session']?.detail ?? '';
            return answer?.status === 503 && detail.includes('contested') ? detail : undefined;
          },
          { what: `connector on ${port}: /health 503, session contested`, timeoutMs: 45_000 },
        );
        expect(contested).toMatch(
          /contested: the venue gave this session id to another connection \d+ times in the last 300 s \(run one connector per VENUE_SESSION_ID\)/,
        );
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const recent = /^connector_venue_session_replacements_recent\{[^}]*\} (\d+)/m.exec(metrics)?.[1];
        expect(Number(recent)).toBeGreaterThanOrEqual(2);
        expect(metrics).toMatch(/^connector_venue_reconnects_total\{reason="replaced",[^}]*\} [1-9]/m);
      }
      // the log line comes down the child's stdout pipe, the /health answer over HTTP: either may be read first
      await eventually(
        () =>
          duel.some((app) => app.lines.some((line) => line.includes('venue session contested'))) ? true : undefined,
        { what: 'a "venue session contested" log line' },
      );
    } finally {
      // a retry starts its own duel: these two must not join it on the same session id
      for (const app of duel) await app.stop();
    }
  }, 120_000); // two connector processes starting on a busy machine, then their duel
});

/**
 * VenueSession over a real WebSocket against a minimal local server standing in for an injected fault
 * (garbage frames, connection accounting). The full venue behaviour is covered against the sandbox in
 * venue-side.sandbox.spec.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { filter, firstValueFrom, timeout } from 'rxjs';
import WebSocket, { WebSocketServer } from 'ws';
import { MetricsRegistry } from '#observability';
import { systemClock } from '../clock.js';
import { captureLogger } from '../testing/test-logger.js';
import { type VenueOptions, withDefaults } from '../venue-options.js';
import { VenueMetrics } from '../venue-metrics.js';
import { VenueSession } from './venue-session.js';

let server: WebSocketServer;
let wsUrl: string;
let connections = 0;
const sessions: VenueSession[] = [];

beforeEach(async () => {
  created = [];
  connections = 0;
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  wsUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/svc/ws/ws-client`;
  server.on('connection', () => {
    connections++;
  });
});

afterEach(async () => {
  for (const session of sessions.splice(0)) {
    await session.stop();
    session.dispose();
  }
  for (const client of server.clients) client.terminate();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * Sockets the session created, with how many earlier ones were still open or connecting at that moment.
 * Judged on the client's side: the server's view of a closed socket arrives on its own tick, so counting
 * there measures event ordering under load, not the session's rule.
 */
let created: { socket: WebSocket; earlierStillLive: number }[] = [];

function startSession(overrides: Partial<VenueOptions> = {}) {
  const { logger, lines } = captureLogger();
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const metrics = new VenueMetrics(registry);
  let issued = 0;
  const options = withDefaults({
    restBaseUrl: 'http://127.0.0.1:1',
    wsUrl,
    apiKey: 'k',
    apiSecret: 'c2VjcmV0',
    signatureEncoding: 'base64',
    sessionId: 'sess-unit',
    antiReplay: 'tonce',
    staleAfterMs: 1_000,
    stallTimeoutMs: 5_000,
    reconnect: { initialMs: 20, maxMs: 200 },
    connectionMaxAgeMs: 60_000,
    orderReplyTimeoutMs: 1_000,
    account: 'a',
    ...overrides,
  });
  const session = new VenueSession(
    options,
    { fetchToken: () => Promise.resolve(`secret-token-${++issued}`) },
    metrics,
    logger,
    systemClock,
    {
      createSocket: (url) => {
        const earlierStillLive = created.filter(
          ({ socket }) => socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING,
        ).length;
        const socket = new WebSocket(url, { perMessageDeflate: false });
        created.push({ socket, earlierStillLive });
        return socket;
      },
    },
  );
  sessions.push(session);
  session.start();
  return { session, metrics, lines, registry };
}

const reached = (session: VenueSession, state: string) =>
  firstValueFrom(
    session.state$.pipe(
      filter((s) => s.state === state),
      timeout(5_000),
    ),
  );

describe('VenueSession', () => {
  it('counts invalid and unknown frames, never crashes, and keeps tokens out of the logs', async () => {
    const { session, metrics, lines } = startSession();
    const frames: string[] = [];
    session.addFrameListener((m) => frames.push(m.messageType));
    await reached(session, 'open');
    for (const client of server.clients) {
      client.send('not json {');
      client.send('[1,2]');
      client.send(JSON.stringify({ messageType: 'heartbeatV9', x: 1 }));
      client.send(JSON.stringify({ messageType: 'pricestream', timestamp: 'yesterday' }));
      client.send(JSON.stringify({ messageType: 'error', chanId: 'c', timestamp: 1, code: 'X', message: 'm' }));
    }
    const deadline = Date.now() + 5_000;
    while (frames.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(frames).toEqual(['error']);
    const rejected = (await metrics.framesRejected.get()).values;
    expect(rejected.find((v) => v.labels.reason === 'invalid')?.value).toBe(3);
    expect(rejected.find((v) => v.labels.reason === 'unknown_type')?.value).toBe(1);
    expect(session.state).toBe('open');
    expect(lines.join('')).not.toContain('secret-token');
    expect(lines.join('')).toContain('venue frame rejected');
  });

  it('frames of a type the spec does not show (the sandbox heartbeat, W30): counted as unknown_type, one log line per type and interval, the type bounded', async () => {
    const { session, metrics, lines } = startSession();
    await reached(session, 'open');
    const longType = `x\u001b[2K${'y'.repeat(500)}`;
    for (const client of server.clients) {
      for (let i = 0; i < 5; i++) client.send(JSON.stringify({ messageType: 'heartbeat', chanId: 'c', seq: i }));
      for (let i = 0; i < 3; i++) client.send(JSON.stringify({ messageType: 'venueStatus', up: true }));
      client.send(JSON.stringify({ messageType: longType }));
    }
    const counted = async () =>
      (await metrics.framesRejected.get()).values.find((v) => v.labels.reason === 'unknown_type')?.value ?? 0;
    const deadline = Date.now() + 5_000;
    while ((await counted()) < 9 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await counted()).toBe(9);
    expect((await metrics.framesRejected.get()).values.find((v) => v.labels.reason === 'unknown')).toBeUndefined();
    const logged = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['msg'] === 'venue frame of unknown type ignored');
    // one line per type (the rest held back and counted on the type's next line), none per frame
    expect(logged.map((record) => [record['level'], record['messageType']])).toEqual([
      ['warn', 'heartbeat'],
      ['warn', 'venueStatus'],
      ['warn', longType.slice(0, 64)],
    ]);
    expect(logged.every((record) => record['reason'] === 'unknown_type')).toBe(true);
  });

  it('refreshes the connection repeatedly with one socket at a time on the sessionId', async () => {
    const { session } = startSession({ connectionMaxAgeMs: 60 });
    await reached(session, 'open');
    const deadline = Date.now() + 10_000;
    while (connections < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(connections).toBeGreaterThanOrEqual(5);
    expect(created.length).toBeGreaterThanOrEqual(5);
    expect(created.map((c) => c.earlierStillLive)).toEqual(created.map(() => 0));
    expect(session.reconnects).toBeGreaterThanOrEqual(4);
  });

  it('reconnects after the server closes the socket, with a fresh token each time', async () => {
    const tokens: string[] = [];
    server.on('connection', (_socket: WebSocket, request) => {
      tokens.push(new URL(request.url ?? '', 'http://x').searchParams.get('token') ?? '');
    });
    const { session } = startSession();
    await reached(session, 'open');
    for (const client of server.clients) client.terminate();
    await reached(session, 'fetchingToken');
    await reached(session, 'open');
    expect(tokens).toEqual(['secret-token-1', 'secret-token-2']);
  });
});

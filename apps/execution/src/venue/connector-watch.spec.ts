import { describe, expect, it } from '@jest/globals';
import { Subjects, type ConnectorStatus } from '#contracts';
import { FakeClock } from '#testing';
import { ConnectorWatch } from './connector-watch.js';

const T0 = 1_800_000_000_000;
const subjects = new Subjects('gw.v1', 'acct1');

/** The watch on stand-ins of the bus: `publish` delivers a status as the subscription would; `stored` the last value. */
function watch(stored?: Partial<ConnectorStatus>) {
  const clock = new FakeClock(T0);
  let deliver: ((status: unknown) => void) | undefined;
  const connector = new ConnectorWatch({
    core: {
      subscribe: (_subject: string, handle: (message: { json: () => unknown }) => void) => {
        deliver = (status) => handle({ json: () => status });
        return { unsubscribe: () => undefined };
      },
    } as never,
    streams: {
      lastMessage: () => Promise.resolve(stored && { subject: subjects.connectorStatus, seq: 1, value: stored }),
    } as never,
    subjects,
    clock,
    staleMs: 15_000,
  });
  const status = (sessionState: string): Partial<ConnectorStatus> => ({
    v: 1,
    sessionState: sessionState as never,
    orderQueuePaceMs: 300,
    publishedAt: clock.now(),
  });
  return { connector, clock, publish: (s: unknown) => deliver?.(s), status };
}

describe('ConnectorWatch: /health says when no connector can take orders', () => {
  it('up while a connector is heard with its session open; down once it has not been for CONNECTOR_STALE_MS', async () => {
    const { connector, clock, publish, status } = watch();
    await connector.start();
    publish(status('open'));
    clock.advance(15_000);
    expect(connector.health()).toEqual({ up: true });
    clock.advance(1);
    expect(connector.health()).toMatchObject({
      up: false,
      detail: expect.stringMatching(
        /no connector status heard for 15 s \(the last said its venue session was open\): orders accepted now fail SEND_DEADLINE_PASSED/,
      ),
    });
    publish(status('open'));
    expect(connector.health().up).toBe(true);
  });

  it('a session not open (backoff, stopped) counts from the last time it was: a restart within the window stays up', async () => {
    const { connector, clock, publish, status } = watch();
    await connector.start();
    publish(status('open'));
    clock.advance(5_000);
    publish(status('stopped')); // SIGTERM: the next connector starts within a second or two
    clock.advance(2_000);
    expect(connector.health().up).toBe(true);
    clock.advance(9_000);
    expect(connector.health()).toMatchObject({
      up: false,
      detail: expect.stringContaining('venue session is stopped'),
    });
    publish(status('backoff'));
    expect(connector.health().up).toBe(false);
    publish(status('open'));
    expect(connector.health().up).toBe(true);
  });

  it('no connector at all: up for the first window after start, then down saying nothing was heard', async () => {
    const { connector, clock } = watch();
    await connector.start();
    clock.advance(15_000);
    expect(connector.health().up).toBe(true);
    clock.advance(5_000);
    expect(connector.health()).toMatchObject({
      up: false,
      detail: expect.stringContaining('no connector status heard for 20 s'),
    });
  });

  it('the last value read back at start counts from when it was published; junk is ignored', async () => {
    const { connector, clock, publish } = watch({ v: 1, sessionState: 'open', publishedAt: T0 - 14_000 });
    await connector.start();
    publish({ sessionState: 42 });
    publish(null);
    expect(connector.health().up).toBe(true);
    clock.advance(1_001);
    expect(connector.health()).toMatchObject({ up: false, detail: expect.stringContaining('heard for 15 s') });
  });

  it('the order queue pace of a status heard within CONNECTOR_STALE_MS; none, or older: unknown, and /health says so', async () => {
    const { connector, clock, publish, status } = watch();
    await connector.start();
    expect(connector.orderQueuePaceMs()).toBeUndefined();
    expect(connector.health()).toEqual({
      up: true,
      detail: expect.stringContaining('orders are accepted without estimating their wait (no ORDER_QUEUE_FULL)'),
    });
    publish({ ...status('open'), orderQueuePaceMs: 1_751 });
    expect(connector.orderQueuePaceMs()).toBe(1_751);
    expect(connector.health()).toEqual({ up: true });
    clock.advance(15_001);
    expect(connector.orderQueuePaceMs()).toBeUndefined();
    expect(connector.health()).toMatchObject({ up: false, detail: expect.stringContaining('no ORDER_QUEUE_FULL') });
    publish({ ...status('open'), orderQueuePaceMs: '300' }); // an older connector, or junk: no pace
    expect(connector.orderQueuePaceMs()).toBeUndefined();
    expect(connector.health()).toMatchObject({ up: true, detail: expect.stringContaining('no order queue pace') });
  });
});

describe('ConnectorWatch: a new life of the connector', () => {
  it('says since when the life now heard was first heard (a later startedAt); none for the first life heard', async () => {
    const { connector, clock, publish, status } = watch({ ...statusOf('open'), startedAt: T0 - 60_000 });
    await connector.start();
    expect(connector.lifeHeardSince()).toBeUndefined();
    clock.advance(1_000);
    publish({ ...status('open'), startedAt: T0 - 60_000 });
    expect(connector.lifeHeardSince()).toBeUndefined();
    clock.advance(1_000);
    publish({ ...status('idle'), startedAt: T0 + 1_500 }); // killed and restarted
    expect(connector.lifeHeardSince()).toBe(T0 + 2_000);
    clock.advance(1_000);
    publish({ ...status('open'), startedAt: T0 + 1_500 });
    expect(connector.lifeHeardSince()).toBe(T0 + 2_000);
    // an earlier life's status heard late (two processes overlapping) does not move it back and forth
    publish({ ...status('stopped'), startedAt: T0 - 60_000 });
    publish({ ...status('open'), startedAt: T0 + 1_500 });
    expect(connector.lifeHeardSince()).toBe(T0 + 2_000);
  });
});

function statusOf(sessionState: string): Partial<ConnectorStatus> {
  return { v: 1, sessionState: sessionState as never, publishedAt: T0 };
}

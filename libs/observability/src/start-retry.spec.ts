import { describe, expect, it } from '@jest/globals';
import { type DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { JsonLogger, type LogSink } from './json-logger.js';
import { lifecycleOf, type StartStop } from './lifecycle.js';
import { startNestApp } from './run-app.js';
import { decideStartFailure, START_RETRY_MAX_MS } from './start-retry.js';
import { STARTUP_STEP_MAX, StartupProgress, WAITING_FOR_NATS } from './startup-progress.js';

class BusGone extends Error {}
const busGone = (error: unknown): boolean => error instanceof BusGone;

describe('decideStartFailure (a start-up attempt that failed)', () => {
  const failure = { error: new BusGone('timeout'), attempt: 1, stopRequested: false, retryable: busGone };

  it('tries again after NATS cut it off, pausing 1 s, doubling up to 30 s', () => {
    expect(decideStartFailure(failure)).toEqual({ kind: 'retry', afterMs: 1_000 });
    expect(decideStartFailure({ ...failure, attempt: 3 })).toEqual({ kind: 'retry', afterMs: 4_000 });
    expect(decideStartFailure({ ...failure, attempt: 40 })).toEqual({ kind: 'retry', afterMs: START_RETRY_MAX_MS });
  });

  it('fails at once on anything the app does not call retryable (a bug, a refused setting)', () => {
    expect(decideStartFailure({ ...failure, error: new Error('boom') })).toEqual({ kind: 'fail' });
  });

  it('never starts again once a stop was requested, even for a retryable failure', () => {
    expect(decideStartFailure({ ...failure, stopRequested: true })).toEqual({ kind: 'stopped' });
  });
});

describe('StartupProgress (the step /health names while starting)', () => {
  it('says waiting for NATS first, then the step entered, on one bounded line', () => {
    const progress = new StartupProgress();
    expect(progress.step).toBe(WAITING_FOR_NATS);
    progress.enter('declaring streams and buckets');
    expect(progress.step).toBe('declaring streams and buckets');
    progress.enter(`x\n${'y'.repeat(500)}`);
    expect(progress.step.length).toBe(STARTUP_STEP_MAX);
    expect(progress.step).not.toContain('\n');
  });

  it('abandon runs every release, last first, past one that fails', async () => {
    const progress = new StartupProgress();
    const released: string[] = [];
    progress.onAbandon(() => void released.push('connection'));
    progress.onAbandon(() => Promise.reject(new Error('already closed')));
    progress.onAbandon(() => void released.push('later'));
    await progress.abandon();
    expect(released).toEqual(['later', 'connection']);
  });
});

/** A runtime that starts a timer, names its step, and fails its first start half-way (NATS gone). */
@Injectable()
class FlakyRuntime implements StartStop {
  static attempts = 0;
  static running = 0;
  static stops = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(@Inject(StartupProgress) private readonly startup: StartupProgress) {}
  async start(): Promise<void> {
    FlakyRuntime.attempts += 1;
    this.startup.enter('declaring streams');
    this.timer = setInterval(() => undefined, 1_000);
    FlakyRuntime.running += 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (FlakyRuntime.attempts === 1) throw new BusGone('TimeoutError: timeout');
  }
  stop(): Promise<void> {
    if (this.timer !== undefined) {
      clearInterval(this.timer);
      FlakyRuntime.running -= 1;
    }
    FlakyRuntime.stops += 1;
    return Promise.resolve();
  }
}

function flakyModule(startup: StartupProgress): DynamicModule {
  @Module({})
  class FlakyModule {}
  return {
    module: FlakyModule,
    providers: [{ provide: StartupProgress, useValue: startup }, FlakyRuntime, lifecycleOf(FlakyRuntime)],
  };
}

describe('startNestApp across a start-up NATS cut off', () => {
  it('stops what the cut-off attempt started, starts again in-process, and serves once; nothing runs twice', async () => {
    const lines: string[] = [];
    const sink: LogSink = { write: (line: string) => lines.push(line) > 0 };
    const progresses: StartupProgress[] = [];
    const { app } = await startNestApp(
      (startup) => {
        progresses.push(startup);
        return flakyModule(startup);
      },
      {
        app: 'probe',
        port: 0,
        host: '127.0.0.1',
        logger: new JsonLogger('probe', 'main', 'info', sink),
        retryable: busGone,
      },
    );
    try {
      expect(FlakyRuntime.attempts).toBe(2);
      expect(FlakyRuntime.stops).toBe(1); // the first attempt's, before the second started
      expect(FlakyRuntime.running).toBe(1); // one timer: the second attempt's
      expect(progresses).toHaveLength(2); // a fresh module (providers, progress) per attempt
      const cutOff = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((l) => l['level'] === 'warn');
      expect(cutOff).toMatchObject({
        msg: 'start-up cut off: NATS became unavailable; stopping what started, then starting again',
        attempt: 1,
        step: 'declaring streams',
        retryInMs: 1_000,
      });
    } finally {
      await app.close();
    }
    expect(FlakyRuntime.running).toBe(0);
  });

  it('a failure the app does not call retryable is thrown, after what started is stopped', async () => {
    FlakyRuntime.attempts = 0;
    FlakyRuntime.running = 0;
    FlakyRuntime.stops = 0;
    await expect(
      startNestApp(flakyModule, {
        app: 'probe',
        port: 0,
        host: '127.0.0.1',
        logger: new JsonLogger('probe', 'main', 'error', { write: () => true }),
      }),
    ).rejects.toThrow('timeout');
    expect(FlakyRuntime.attempts).toBe(1);
    expect(FlakyRuntime.running).toBe(0);
  });
});

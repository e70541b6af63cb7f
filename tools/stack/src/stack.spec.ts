import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CODE, loadConfig } from '#observability';
import { eventually, freePort } from '#testing';
import { STACK_APPS, type StackApp } from './apps.js';
import { Stack } from './stack.js';
import { StackConfig } from './stack-config.js';

/**
 * A stand-in app: serves /health on HTTP_PORT; exits with EXIT_CODE once, a moment after its first start (a
 * marker file tells a restart from the first run), or kills itself (EXIT_CODE=SIGKILL); stops with exit 0 on SIGTERM.
 */
const FAKE_APP = `
const fs = require('node:fs');
const http = require('node:http');
const marker = process.env.MARKER;
const first = !fs.existsSync(marker);
fs.appendFileSync(marker, 'started\\n');
const server = http.createServer((req, res) => res.end('ok'));
server.listen(Number(process.env.HTTP_PORT), '127.0.0.1', () => {
  if (first) setTimeout(() => process.env.EXIT_CODE === 'SIGKILL' ? process.kill(process.pid, 'SIGKILL') : process.exit(Number(process.env.EXIT_CODE)), 300);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

describe('the launcher supervises its apps', () => {
  let dir: string;
  let stack: Stack | undefined;
  const said: string[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-stack-supervise-'));
    await writeFile(join(dir, 'fake-app.cjs'), FAKE_APP);
    said.length = 0;
  });
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (exitCode: number | 'SIGKILL'): Promise<{ stack: Stack; marker: string }> => {
    const port = await freePort();
    const marker = join(dir, 'starts');
    const app: StackApp = {
      name: 'fake',
      main: join(dir, 'fake-app.cjs'),
      // the launcher's own port variable for it (its value is the fake's port)
      portVariable: 'ACCOUNT_SYNC_HTTP_PORT',
      env: () => ({ HTTP_PORT: String(port), MARKER: marker, EXIT_CODE: String(exitCode) }),
      describe: () => 'a stand-in',
      restartExitCodes: [EXIT_CODE.leaseLost],
    };
    const config = loadConfig(StackConfig, {
      STACK_DATA_DIR: dir,
      NATS_URL: 'nats://127.0.0.1:1', // not managed, never dialled by the stand-in
      ACCOUNT_SYNC_HTTP_PORT: String(port),
    });
    const venue = {
      restUrl: 'http://127.0.0.1:1',
      wsUrl: 'ws://127.0.0.1:1',
      ipsUrl: 'http://127.0.0.1:1/ips.json',
      apiKey: 'k',
      apiSecret: 's',
      signatureEncoding: 'base64' as const,
    };
    const state = { state: { v: 1 as const, sessionId: 'gw-test', createdAt: '' }, found: false };
    const running = new Stack(config, process.cwd(), state, venue, (line) => said.push(line), [app]);
    stack = running;
    await running.start();
    return { stack: running, marker };
  };

  it.each([
    [
      'its restart code (account-sync: lease lost, 75)',
      EXIT_CODE.leaseLost,
      'stack: fake exited (code 75); starting it again in 1 s',
    ],
    [
      'exit 0 after a stop nobody asked the launcher for (kill -TERM <pid>: a restart is routine)',
      0,
      'stack: fake stopped (code 0) without the launcher asking; starting it again in 1 s',
    ],
    [
      'a signal (kill -9)',
      'SIGKILL' as const,
      'stack: fake stopped (SIGKILL) without the launcher asking; starting it again in 1 s',
    ],
  ])('an app that exits with %s is started again; the stack runs on', async (_what, exitCode, line) => {
    const { stack: running, marker } = await start(exitCode);
    const fatal = running.supervise();
    await eventually(
      async () => ((await readFile(marker, 'utf8')).split('\n').filter((l) => l !== '').length >= 2 ? true : undefined),
      { what: 'the app started a second time', timeoutMs: 10_000 },
    );
    expect(said).toContain(line);
    expect(running.components.find((c) => c.name === 'fake')?.process?.running).toBe(true);
    let settled = false;
    void fatal.then(() => (settled = true));
    await new Promise((resolvePause) => setTimeout(resolvePause, 500));
    expect(settled).toBe(false); // no failure reported: the stack runs on
  });

  it("the apps' restart codes are 75 (account-sync: lease lost; any: NATS gone during start-up), no other", () => {
    expect(EXIT_CODE.unavailable).toBe(EXIT_CODE.leaseLost);
    for (const app of STACK_APPS) expect(app.restartExitCodes).toEqual([75]);
  });

  it('any other exit (a crash: exit 1) is a failure of the stack: reported, nothing restarted', async () => {
    const { stack: running, marker } = await start(1);
    const exit = await running.supervise();
    expect(exit).toMatchObject({ code: 1, component: { name: 'fake' } });
    expect(said).toEqual([]);
    expect(existsSync(marker)).toBe(true);
  });
});

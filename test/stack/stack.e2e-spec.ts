/**
 * Issue 10: one command runs it all. The launcher (what `npm start` runs after the build) as a real process:
 * configuration refused before anything starts; NATS, the sandbox and the connector up and wired to the
 * sandbox's credentials without a human; one line per component; live prices within seconds; Ctrl-C stops
 * them in reverse order and exits 0; a second start on the same data folder finds the earlier state.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { GatewayClient } from '#client';
import { StreamName } from '#contracts';
import { AppProcess } from '../kit/app-process.js';
import { launcherEnv, removeDataDir, startLauncher, type RunningLauncher } from './launcher.js';

describe('the launcher (npm start)', () => {
  let first: RunningLauncher | undefined;
  let dataDir = '';

  afterAll(async () => {
    await first?.process.stop();
    if (dataDir !== '') await removeDataDir(dataDir);
  });

  it('refuses a bad configuration by name before anything starts (exit 78, no data folder)', async () => {
    const env = await launcherEnv('/tmp/gw-stack-never-created', {
      STACK_VENUE: 'real',
      VENUE_REST_URL: 'ftp://venue',
      VENUE_API_KEY: 'k',
      VENUE_API_SECRET: 'top-secret-value',
    });
    const child = AppProcess.command(process.execPath, [join(process.cwd(), 'dist/tools/stack/src/main.js')], env);
    const exit = await child.exited;
    expect(exit.code).toBe(78);
    const output = child.lines.join('\n');
    expect(output).toContain('stack: configuration: VENUE_REST_URL must be a URL starting http:// or https://');
    expect(output).toContain('stack: see README.md#configuration');
    expect(output).not.toContain('top-secret-value');
    expect(existsSync('/tmp/gw-stack-never-created')).toBe(false);
  });

  let sessionId = '';
  let outcomesCreated = '';

  it('starts NATS, the sandbox and the connector wired together, one line each, and serves prices', async () => {
    first = await startLauncher();
    dataDir = first.dataDir;
    const lines = first.process.lines;
    const up = lines.findIndex((l) => l.startsWith('gateway stack is up'));
    expect(lines[up]).toContain('(new)');
    expect(lines[up + 1]).toMatch(
      new RegExp(`^ {2}nats-server +nats://127\\.0\\.0\\.1:${first.ports.nats} +JetStream, store ${dataDir}/nats$`),
    );
    expect(lines[up + 2]).toMatch(new RegExp(`^ {2}sandbox-venue +http://127\\.0\\.0\\.1:${first.ports.sandbox} `));
    expect(lines[up + 3]).toMatch(
      new RegExp(
        `^ {2}connector +http://127\\.0\\.0\\.1:${first.ports.connector}/health +account default, venue session (gw-[0-9a-f-]+)$`,
      ),
    );
    sessionId = /venue session (\S+)$/.exec(lines[up + 3] ?? '')?.[1] ?? '';
    expect(first.tryNext()).toEqual([
      `npx gw prices BTC.USD 1 BTC T --group 9a000000-0000-4000-8000-000000000001 --nats ${first.natsUrl}`,
      `npx gw status --nats ${first.natsUrl}`,
      `NATS_URL=${first.natsUrl} node dist/examples/sdk/price-follower.js`,
    ]);
    // no secret on the terminal; the credentials file is the owner's only
    const secret = JSON.parse(await readFile(join(dataDir, 'sandbox/credentials.json'), 'utf8')) as {
      apiSecret: string;
    };
    expect(lines.join('\n')).not.toContain(secret.apiSecret);

    const health = await fetch(`http://127.0.0.1:${first.ports.connector}/health`);
    expect(health.status).toBe(200);

    const client = await GatewayClient.connect({ servers: first.natsUrl, account: 'default' });
    try {
      const group = (await client.accountGroups.natural())?.uuid ?? '';
      const live = await firstValueFrom(
        client.prices
          .watch({ instrument: 'BTC.USD', quantity: '1', currency: 'BTC', tenor: 'T', accountGroup: group })
          .pipe(filter((u) => u.tradable)),
      );
      expect(live.price.bid?.price).toMatch(/^\d+(\.\d+)?$/);
      outcomesCreated = (await client.context.jsm.streams.info(StreamName.orderOutcomes('default'))).created;
    } finally {
      await client.close();
    }
  });

  it('Ctrl-C stops the connector, then the sandbox, then NATS, and exits 0', async () => {
    if (first === undefined) throw new Error('no stack');
    const exit = await first.interrupt();
    expect(exit).toEqual({ code: 0, signal: null });
    const stops = first.process.lines.filter((l) => / stopped \(/.test(l));
    expect(stops).toEqual([
      'stack: connector stopped (exit 0)',
      'stack: sandbox-venue stopped (exit 0)',
      'stack: nats-server stopped (exit 0)',
    ]);
    expect(first.process.lines).toContain('stack: stopped');
    expect(await readFile(join(dataDir, 'logs/connector.log'), 'utf8')).toContain('stopped cleanly');
    expect(existsSync(join(dataDir, 'stack.lock'))).toBe(false);
    first = undefined;
  });

  it('a second start on the same data folder finds the earlier state: same session id, same JetStream store', async () => {
    const second = await startLauncher({ dataDir, env: await launcherEnv(dataDir) });
    try {
      const lines = second.process.lines;
      expect(lines.find((l) => l.startsWith('gateway stack is up'))).toContain('(earlier state found)');
      expect(lines.find((l) => l.trimStart().startsWith('connector'))).toContain(`venue session ${sessionId}`);
      const client = await GatewayClient.connect({ servers: second.natsUrl, account: 'default' });
      try {
        const info = await client.context.jsm.streams.info(StreamName.orderOutcomes('default'));
        expect(info.created).toBe(outcomesCreated);
      } finally {
        await client.close();
      }
      // a second launcher on the same folder is refused while this one runs
      const third = AppProcess.command(
        process.execPath,
        [join(process.cwd(), 'dist/tools/stack/src/main.js')],
        await launcherEnv(dataDir),
      );
      expect((await third.exited).code).toBe(1);
      expect(third.lines.join('\n')).toMatch(/another stack \(pid \d+\) runs on/);
    } finally {
      expect((await second.interrupt()).code).toBe(0);
    }
  });
});

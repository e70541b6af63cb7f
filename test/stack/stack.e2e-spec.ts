/**
 * Issue 10: one command runs it all. The launcher (what `npm start` runs after the build) as a real process:
 * configuration refused before anything starts; NATS, the sandbox, the connector, execution and account-sync
 * up and wired to the sandbox's credentials (and its webhooks) without a human; one line per component; live prices within seconds; Ctrl-C stops
 * them in reverse order and exits 0; a second start on the same data folder finds the earlier state.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { GatewayClient } from '#client';
import { StreamName } from '#contracts';
import { eventually } from '#testing';
import { AppProcess } from '../kit/app-process.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { portIsFree } from '../../tools/stack/src/ports.js';
import { launcherEnv, removeDataDir, startLauncher, type RunningLauncher } from './launcher.js';

describe('the launcher (npm start)', () => {
  let first: RunningLauncher | undefined;
  let dataDir = '';

  afterAll(async () => {
    // SIGINT, so the launcher stops its components (a kill would leave them running)
    await first?.interrupt();
    if (dataDir !== '') await removeDataDir(dataDir);
  }, 60_000); // the launcher stops its components in turn; jest's 5 s would cut it short and leave a stack running

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
    // the secret's own check in the same start (security tester: it came only once the rest was fixed)
    expect(output).toContain('stack: configuration: VENUE_WS_URL must be set with STACK_VENUE=real');
    expect(output).toContain(
      'stack: configuration: VENUE_API_SECRET must hold a non-empty secret, Base64 with VENUE_SIGNATURE_ENCODING=base64',
    );
    expect(output).toContain('stack: see README.md#configuration');
    expect(output).not.toContain('top-secret-value');
    expect(existsSync('/tmp/gw-stack-never-created')).toBe(false);
  });

  it('a STACK_HOST this machine cannot listen on is refused by that name, not as six ports in use (outside tester)', async () => {
    const env = await launcherEnv('/tmp/gw-stack-never-created', { STACK_HOST: '192.0.2.77' }); // TEST-NET-1
    const child = AppProcess.command(process.execPath, [join(process.cwd(), 'dist/tools/stack/src/main.js')], env);
    expect((await child.exited).code).toBe(78);
    const output = child.lines.join('\n');
    expect(output).toContain('stack: configuration: STACK_HOST: not an address of this machine to listen on');
    expect(output).not.toContain('is in use');
  });

  it("an app's bad setting stops the start at that app, names the variable, and the launcher exits 78 too", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-stack-appconfig-'));
    try {
      const env = await launcherEnv(dir, { PRICE_STALE_AFTER_MS: 'abc' });
      const child = AppProcess.command(process.execPath, [join(process.cwd(), 'dist/tools/stack/src/main.js')], env);
      const exit = await child.exited;
      expect(exit.code).toBe(78);
      const output = child.lines.join('\n');
      expect(output).toContain('connector exited (code 78)');
      expect(output).toContain('PRICE_STALE_AFTER_MS');
      expect(output).not.toContain('gateway stack is up');
    } finally {
      await removeDataDir(dir);
    }
  });

  let sessionId = '';
  let outcomesCreated = '';

  it('starts NATS, the sandbox, the connector, execution and account-sync wired together, one line each, and serves prices and orders', async () => {
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
    expect(lines[up + 4]).toMatch(
      new RegExp(
        `^ {2}execution +http://127\\.0\\.0\\.1:${first.ports.execution}/health +order API on gw\\.v1\\.default\\.exec\\.order\\.place$`,
      ),
    );
    expect(lines[up + 5]).toMatch(
      new RegExp(
        `^ {2}account-sync +http://127\\.0\\.0\\.1:${first.ports.accountSync}/health +balances, trades, transactions, withdrawals; webhooks at http://127\\.0\\.0\\.1:${first.env['ACCOUNT_SYNC_WEBHOOK_PORT']}/webhooks/venue$`,
      ),
    );
    expect(first.tryNext()).toEqual([
      `npx gw prices BTC.USD 1 BTC T --group 9a000000-0000-4000-8000-000000000001 --nats ${first.natsUrl}`,
      `npx gw buy BTC.USD 0.01 BTC T --group 9a000000-0000-4000-8000-000000000001 --strategy manual --nats ${first.natsUrl}`,
      `npx gw status --nats ${first.natsUrl}`,
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
      // the execution app is wired to the connector and the venue: an order reaches its outcome
      const placed = client.orders.place({
        strategyId: 'stack-test',
        accountGroup: group,
        side: 'BUY',
        instrument: 'BTC.USD',
        quantity: '0.01',
        currency: 'BTC',
        tenor: 'T',
      });
      expect((await placed.outcome).state).toBe('SUCCESS');
      // account-sync is wired too: the account's balances are mirrored
      const balances = await eventually(
        async () => {
          const list = await client.account.balances({ accountGroupUuid: group });
          return list.length > 0 ? list : undefined;
        },
        { what: 'balances mirrored by account-sync', timeoutMs: 30_000 },
      );
      expect(balances.map((b) => b.ccy)).toContain('USD');
      // and the sandbox's webhooks reach account-sync's receiver (its address list admits the sender)
      const { adminUrl } = JSON.parse(await readFile(join(dataDir, 'sandbox/credentials.json'), 'utf8')) as {
        adminUrl: string;
      };
      const deposit = await fetch(`${adminUrl}/deposits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountGroupUuid: group, ccy: 'USD', amount: '10.00', customRef: 'stack-e2e' }),
      });
      expect(deposit.ok).toBe(true);
      const { uuid } = (await deposit.json()) as { uuid: string };
      const stored = await eventually(async () => client.account.transaction(uuid).catch(() => undefined), {
        what: 'the deposit stored by account-sync',
        timeoutMs: 30_000,
      });
      expect(stored).toMatchObject({ state: 'PENDING' }); // from its webhook or the list read, whichever came first
      // the deposit's webhook reached the receiver and was taken (stored, or a duplicate of the list's copy),
      // never refused by the address list
      const webhooks = await eventually(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${first?.ports.accountSync}/metrics`)).text();
          return /^account_sync_webhooks_total\{result="(stored|duplicate)"[^}]*\} [1-9]/m.test(text)
            ? text
            : undefined;
        },
        { what: 'a webhook taken by account-sync', timeoutMs: 30_000 },
      );
      expect(webhooks).not.toMatch(/^account_sync_webhooks_total\{result="refused_source"[^}]*\} [1-9]/m);
      outcomesCreated = (await client.context.jsm.streams.info(StreamName.orderOutcomes('default'))).created;
    } finally {
      await client.close();
    }
  }, 90_000);

  it('Ctrl-C stops account-sync, execution, the connector, then the sandbox, then NATS, and exits 0', async () => {
    if (first === undefined) throw new Error('no stack');
    const exit = await first.interrupt();
    expect(exit).toEqual({ code: 0, signal: null });
    const stops = first.process.lines.filter((l) => / stopped \(/.test(l));
    expect(stops).toEqual([
      'stack: account-sync stopped (exit 0)',
      'stack: execution stopped (exit 0)',
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
  }, 90_000); // the launcher alone may take up to 60 s to come up on a busy machine

  it('a launcher killed outright (SIGKILL) leaves its components; the next start stops them first and comes up', async () => {
    // rotating the logs (the connector's is past 1000 bytes from the earlier starts): no pipe to the components
    const env = await launcherEnv(dataDir, { STACK_LOG_MAX_BYTES: '1000' });
    const killed = await startLauncher({ dataDir, env });
    await eventually(() => (existsSync(join(dataDir, 'logs/connector.log.1')) ? true : undefined), {
      what: "the connector's log rotated",
    });
    killed.process.signal('SIGKILL');
    await killed.process.exited;
    expect(await portIsFree(killed.ports.connector, '127.0.0.1')).toBe(false); // its components run on
    // outside tester: the next start failed on six "port in use" without naming the processes
    const next = await startLauncher({ dataDir, env });
    try {
      expect(next.process.lines.join('\n')).toMatch(
        /stack: an earlier stack on this data folder did not stop its components; stopping them first: .*nats-server \(pid \d+\).*connector \(pid \d+\)/,
      );
    } finally {
      expect((await next.interrupt()).code).toBe(0);
    }
    expect(existsSync(join(dataDir, 'stack.children.json'))).toBe(false);
  }, 150_000);

  it('a signal in the middle of the start (SIGHUP: the terminal closed) stops what runs and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-stack-early-'));
    const env = await launcherEnv(dir);
    const child = AppProcess.command(process.execPath, [join(process.cwd(), 'dist/tools/stack/src/main.js')], env);
    try {
      await eventually(() => (existsSync(join(dir, 'logs/sandbox-venue.log')) ? true : undefined), {
        what: 'the sandbox being started',
      });
      child.signal('SIGHUP'); // handled as SIGTERM and Ctrl-C (it orphaned every component)
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.lines).not.toContain('Ctrl-C stops everything.');
      for (const port of [
        'STACK_NATS_PORT',
        'SANDBOX_PORT',
        'CONNECTOR_HTTP_PORT',
        'EXECUTION_HTTP_PORT',
        'ACCOUNT_SYNC_HTTP_PORT',
        'ACCOUNT_SYNC_WEBHOOK_PORT',
      ]) {
        expect(await portIsFree(Number(env[port]), '127.0.0.1')).toBe(true); // nothing left running
      }
    } finally {
      await child.stop();
      await removeDataDir(dir);
    }
  });

  it('the real venue is configuration only: URLs and key files (here pointing at a sandbox as the venue)', async () => {
    const venue = await startE2eVenue({ trading: { priceIntervalMs: 100 } });
    const dir = await mkdtemp(join(tmpdir(), 'gw-stack-real-'));
    try {
      await writeFile(join(dir, 'key'), `${venue.credentials.primary.apiKey}\n`, { mode: 0o600 });
      await writeFile(join(dir, 'secret'), `${venue.credentials.primary.apiSecret}\n`, { mode: 0o600 });
      const env = await launcherEnv(join(dir, 'data'), {
        STACK_VENUE: 'real',
        VENUE_REST_URL: venue.restBaseUrl,
        VENUE_WS_URL: venue.wsUrl,
        VENUE_IPS_URL: venue.ipsUrl,
        VENUE_API_KEY_FILE: join(dir, 'key'),
        VENUE_API_SECRET_FILE: join(dir, 'secret'),
        ACCOUNT: 'acme',
      });
      delete env['SANDBOX_PORT'];
      const real = await startLauncher({ dataDir: join(dir, 'data'), env });
      try {
        const lines = real.process.lines;
        expect(
          lines.some((l) => /^ {2}venue +http:\/\/127\.0\.0\.1:\d+ +the real venue \(STACK_VENUE=real\)$/.test(l)),
        ).toBe(true);
        expect(lines.some((l) => l.trimStart().startsWith('sandbox-venue'))).toBe(false);
        expect(lines.join('\n')).not.toContain(venue.credentials.primary.apiSecret);
        expect(real.tryNext()[2]).toBe(`npx gw status --nats ${real.natsUrl} --account acme`);
        const client = await GatewayClient.connect({ servers: real.natsUrl, account: 'acme' });
        try {
          const group = venue.seed.defaultGroupUuid;
          const live = await firstValueFrom(
            client.prices
              .watch({ instrument: 'BTC.USD', quantity: '1', currency: 'BTC', tenor: 'T', accountGroup: group })
              .pipe(filter((u) => u.tradable)),
          );
          expect(live.price.accountGroup).toBe(group);
        } finally {
          await client.close();
        }
      } finally {
        expect((await real.interrupt()).code).toBe(0);
      }
    } finally {
      await venue.close();
      await removeDataDir(dir);
    }
  }, 90_000); // the launcher alone may take up to 60 s to come up on a busy machine
});

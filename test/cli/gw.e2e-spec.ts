/**
 * `gw` against a running stack: through a real terminal (tmux) the price table is drawn with colour and
 * redrawn in place and Ctrl-C ends it; in a pipe the same command writes plain lines without escape codes;
 * `--json` writes one object per update; `gw status` shows the session, streams and consumer lag; errors
 * name the next step. `gw buy` in a terminal places an order on the latest quote and shows its outcome; the
 * account commands (balances, trades with progress, transactions, withdrawals) and halt/resume work on the
 * same stack.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '#testing';
import { removeDataDir, startLauncher, type RunningLauncher } from '../stack/launcher.js';

const run = promisify(execFile);
const GW = join(process.cwd(), 'bin/gw.js');
const GROUP = '9a000000-0000-4000-8000-000000000001';
/** The sandbox's seeded USD bank account of that group (enabled, verified). */
const BANK = 'ba000000-0000-4000-8000-000000000001';

describe('gw CLI', () => {
  let stack: RunningLauncher;
  const socket = `gw-e2e-${process.pid}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  /** A new tmux session (one a failed attempt left is replaced, so a retry shows its own failure). */
  const session = async (name: string, ...args: string[]) => {
    await tmux('kill-session', '-t', name).catch(() => undefined);
    return tmux('new-session', '-d', '-s', name, ...args);
  };

  beforeAll(async () => {
    stack = await startLauncher();
  }, 90_000); // the launcher alone may take up to 60 s to come up on a busy machine
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    await stack?.interrupt();
    await removeDataDir(stack?.dataDir ?? '');
  });

  const gw = (args: string[]) =>
    run(process.execPath, [GW, ...args, '--nats', stack.natsUrl], { encoding: 'utf8', timeout: 30_000 });

  it('in a terminal: a live table with colour, redrawn in place; Ctrl-C ends it with exit 0', async () => {
    const command = `${process.execPath} ${GW} prices BTC.USD 1 BTC T ETH.USD 10 ETH T --group ${GROUP} --nats ${stack.natsUrl}; echo "exit=$?"; sleep 600`;
    await session('prices', '-x', '150', '-y', '20', command);
    const screen = async (escapes = false) =>
      (await tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'prices')).stdout;
    const first = await eventually(
      async () => {
        const text = await screen();
        return /BTC\.USD 1 BTC T\s+live\s+\d/.test(text) && /ETH\.USD 10 ETH T\s+live\s+\d/.test(text)
          ? text
          : undefined;
      },
      { what: 'both rows live in the table', timeoutMs: 20_000 },
    );
    const lines = first.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toMatch(/^STREAM\s+STATUS\s+BID\s+OFFER\s+QUOTE\s+AGE\s+EXPIRES IN\s+UPDATES$/);
    expect(lines).toHaveLength(3); // redrawn in place: still one heading and two rows
    expect(await screen(true)).toContain('\x1b[32mlive'); // green "live"
    const counts = (text: string) => [...text.matchAll(/(\d+)\s*$/gm)].map((m) => Number(m[1]));
    const before = counts(first);
    await eventually(async () => (counts(await screen()).some((n, i) => n > (before[i] ?? 0)) ? true : undefined), {
      what: 'the update counts to grow',
    });
    expect((await screen()).split('\n').filter((l) => l.trim() !== '')).toHaveLength(3);
    await tmux('send-keys', '-t', 'prices', 'C-c');
    await eventually(async () => ((await screen()).includes('exit=0') ? true : undefined), { what: 'exit=0' });
  });

  it('gw status in a terminal: the session in colour, streams and consumers with their lag', async () => {
    await session(
      'status',
      '-x',
      '150',
      '-y',
      '50', // every stream and consumer of the stack, below the session line
      `${process.execPath} ${GW} status --nats ${stack.natsUrl}; echo "exit=$?"; sleep 600`,
    );
    const text = await eventually(
      async () => {
        const pane = (await tmux('capture-pane', '-p', '-e', '-t', 'status')).stdout;
        return pane.includes('exit=') ? pane : undefined;
      },
      { what: 'gw status output' },
    );
    // eslint-disable-next-line no-control-regex -- the colour codes are what is checked
    expect(text).toMatch(/connector \(account default\): session \x1b\[32mopen\x1b\[(0|39)?m since/);
    expect(text).toMatch(/GW_ORDER_COMMANDS_default\s+file\/workqueue/);
    expect(text).toMatch(/ {2}connector\s+0\s+0\s+0/); // the command consumer: no lag
    expect(text).toContain('exit=0');
  });

  it('in a pipe: plain lines, no escape codes; --json: one object per update', async () => {
    const plain = await gw(['prices', 'BTC.USD', '1', 'BTC', 'T', '--count', '3']);
    const lines = plain.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^\S+Z BTC\.USD 1 BTC T live bid \d\S* offer \d\S* quote \S+/);
    expect(plain.stdout).not.toContain('\x1b[');

    const json = await gw(['prices', 'BTC.USD', '1', 'BTC', 'T', '--count', '2', '--json']);
    const updates = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { price: { instrument: string } });
    expect(updates.map((u) => u.price.instrument)).toEqual(['BTC.USD', 'BTC.USD']);

    // a reader that goes away early (head) ends the command quietly
    const piped = await run(
      'sh',
      ['-c', `"${process.execPath}" "${GW}" prices BTC.USD 1 BTC T --nats ${stack.natsUrl} | head -1`],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(piped.stdout).toMatch(/ BTC\.USD 1 BTC T live /);
    expect(piped.stderr).toBe('');

    const status = JSON.parse((await gw(['status', '--json'])).stdout) as {
      connector: { sessionState: string };
      streams: { name: string }[];
    };
    expect(status.connector.sessionState).toBe('open');
    expect(status.streams.map((s) => s.name)).toContain('GW_ORDER_COMMANDS_default');
    for (const stream of status.streams) expect(stream.name).toMatch(/^GW_[A-Z_]+_default$/);
    const streams = JSON.parse((await gw(['streams', '--json'])).stdout) as { name: string }[];
    expect(streams.map((s) => s.name)).toEqual(
      expect.arrayContaining(['GW_PRICES_default', 'GW_ORDER_COMMANDS_default', 'GW_ORDER_OUTCOMES_default']),
    );
  });

  it('in a pipe to a slow reader: an output over 64 KiB arrives whole before the exit code; a reader gone early is no failure', async () => {
    await eventually(
      async () => {
        const page = JSON.parse((await gw(['balances', '--json'])).stdout) as { records: unknown[] };
        return page.records.length > 0 ? true : undefined;
      },
      { what: 'balances mirrored' },
    );
    // the reader takes nothing for 3 s (longer than gw takes to end): the pipe's 64 KiB fill, the rest waits in gw until it is read
    const pipeline = (command: string, reader: string) =>
      run(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${GW}" ${command} --nats ${stack.natsUrl} | ${reader}; echo "gw exit=\${PIPESTATUS[0]}" >&2`,
        ],
        { encoding: 'utf8', timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      );
    const json = await pipeline('balances --json', '(sleep 3; cat)');
    expect(json.stdout.length).toBeGreaterThan(64 * 1024); // else this test proves nothing: the sandbox's account is ~100 KB
    expect(json.stderr).toContain('gw exit=0');
    const document = JSON.parse(json.stdout) as { records: unknown[] };
    expect(document.records.length).toBeGreaterThan(0);

    const table = await pipeline('balances', '(sleep 3; cat)');
    expect(table.stderr).toContain('gw exit=0');
    // the freshness line and the heading, then one row per record
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(document.records.length + 2);

    const gone = await pipeline('balances --json', 'head -c 100 >/dev/null');
    expect(gone.stderr).toBe('gw exit=0\n');
  }, 60_000);

  it('gw buy in a terminal: the order on the latest quote, each state, then its outcome in colour', async () => {
    await session(
      'buy',
      '-x',
      '200',
      '-y',
      '30',
      `${process.execPath} ${GW} buy BTC.USD 0.01 BTC T --group ${GROUP} --strategy cli-e2e --nats ${stack.natsUrl}; echo "exit=$?"; sleep 600`,
    );
    const text = await eventually(
      async () => {
        const pane = (await tmux('capture-pane', '-p', '-e', '-t', 'buy')).stdout;
        return pane.includes('exit=') ? pane : undefined;
      },
      { what: 'gw buy to finish', timeoutMs: 60_000 },
    );
    expect(text).toMatch(/order \S+ accepted: BUY BTC\.USD on quote \S+ for group 9a000000/);
    expect(text).toContain('\x1b[32mSUCCESS'); // green outcome
    expect(text).toMatch(/bought 0\.01 BTC at \d+(\.\d+)? USD/);
    expect(text).toContain('exit=0');
  });

  it('orders, balances, trades and transactions (with progress), withdrawals, halt/resume: plain and --json', async () => {
    const bought = await gw([
      'sell',
      'BTC.USD',
      '0.01',
      'BTC',
      'T',
      '--group',
      GROUP,
      '--strategy',
      'cli-e2e',
      '--json',
    ]);
    const lines = bought.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const outcome = (lines.at(-1) as { outcome: { state: string; orderId: string } }).outcome;
    expect(outcome.state).toBe('SUCCESS');
    expect(bought.stdout).not.toContain('\x1b[');

    const one = JSON.parse((await gw(['orders', '--id', outcome.orderId, '--json'])).stdout) as { state: string };
    expect(one.state).toBe('SUCCESS');
    expect((await gw(['orders'])).stdout).toMatch(/no orders|ORDER/);

    const balances = await eventually(
      async () => {
        const page = JSON.parse((await gw(['balances', '--group', GROUP, '--json'])).stdout) as {
          asOf: number | null;
          stale: boolean;
          records: { ccy: string }[];
        };
        // the rows with how current they are: a read the sync just made
        return page.records.length > 0 && !page.stale && typeof page.asOf === 'number' ? page.records : undefined;
      },
      { what: 'balances mirrored' },
    );
    expect(balances.map((b) => b.ccy)).toContain('USD');
    expect((await gw(['balances'])).stdout).toMatch(/^balances as of \S+ \(\d+s ago\)\nGROUP\s+NAME\s+CCY\s+BALANCE/);

    const trades = await eventually(
      async () => {
        const result = await gw(['trades', '--all']);
        return /cli-e2e|SETTLED|PENDING_SETTLEMENT/.test(result.stdout) ? result : undefined;
      },
      { what: 'the trades mirrored' },
    );
    expect(trades.stderr).toMatch(/reading trades: \d+ of \d+/); // progress on stderr in a pipe
    expect(trades.stdout).toMatch(/^trades as of \S+ \(\d+s ago\)\nCREATED\s+TRADE\s+SIDE/);

    expect((await gw(['transactions'])).stdout).toMatch(
      /^(transactions as of|STALE: transactions)[^\n]*\n(TIME\s+TRANSACTION|no transactions)/,
    );
    const legs = await gw(['transactions', '--all']);
    expect(legs.stderr).toMatch(/reading transactions: \d+ of \d+/); // progress on stderr in a pipe
    expect(legs.stdout).toMatch(
      /^(transactions as of|STALE: transactions)[^\n]*\n(TIME\s+TRANSACTION|no transactions)/,
    );
    // a withdrawal: submitted once per key (a repeat answers the same request), listed, cancelled
    const submit = ['withdrawals', 'submit', 'fiat', '100.50', 'USD', '--group', GROUP, '--bank-account', BANK];
    const key = `cli-e2e-${Date.now().toString(36)}`; // a retry of this test submits its own request
    const first = JSON.parse((await gw([...submit, '--key', key, '--json'])).stdout) as {
      requestId: string;
      state: string;
    };
    expect(first.state).toBe('PENDING_APPROVAL');
    const again = await gw([...submit, '--key', key]);
    expect(again.stdout).toContain(`withdrawal ${first.requestId} (key ${key}): PENDING_APPROVAL — fiat 100.50 USD`);
    const listed = JSON.parse((await gw(['withdrawals', '--json'])).stdout) as {
      withdrawals: { requestId?: string }[];
    };
    expect(listed.withdrawals.filter((w) => w.requestId === first.requestId)).toHaveLength(1);
    const cancelled = JSON.parse((await gw(['withdrawals', 'cancel', '--key', key, '--json'])).stdout) as {
      requestId: string;
      state: string;
      cancelRequested?: boolean;
    };
    expect(cancelled.requestId).toBe(first.requestId);
    expect(cancelled.state === 'CANCELLED' || cancelled.cancelRequested === true).toBe(true);

    expect((await gw(['halt', '--reason', 'e2e', '--by', 'tester'])).stdout).toContain('global: HALTED');
    const refused = await gw(['buy', 'BTC.USD', '0.01', 'BTC', 'T', '--group', GROUP, '--strategy', 'cli-e2e']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toMatch(/TRADING_HALTED[\s\S]*next: .*gw resume/);
    expect((await gw(['resume', '--reason', 'e2e done', '--by', 'tester'])).stdout).toContain('global: ACTIVE');
  }, 90_000); // some twenty gw processes one after another: over 30 s on a busy two-core machine

  it('gw req and gw kv get stand in for `nats req` / `nats kv get` (no NATS CLI on the machines)', async () => {
    const listed = JSON.parse(
      (await gw(['req', 'gw.v1.default.exec.order.list', '{"filter":"unresolved"}'])).stdout,
    ) as {
      ok: boolean;
      orders: unknown[];
    };
    expect(listed).toMatchObject({ ok: true, orders: expect.any(Array) });
    const nobody = await gw(['req', 'gw.v1.default.no.such.subject', '--json']).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect(nobody).toMatchObject({ code: 1 });
    expect(JSON.parse((nobody as { stdout: string }).stdout)).toMatchObject({ error: { code: 'NO_RESPONDER' } });
    const lease = await eventually(
      async () => {
        const result = await gw(['kv', 'get', 'GW_ACCOUNT_SYNC_LEASES', 'default']).catch(() => undefined);
        return result === undefined ? undefined : (JSON.parse(result.stdout) as { key: string; value: string });
      },
      { what: 'the account-sync lease entry' },
    );
    expect(lease).toMatchObject({ key: 'default', value: expect.stringContaining('{') });
    // the name `gw streams --all` prints (the bucket's stream, KV_<bucket>) names the same bucket
    const byStreamName = JSON.parse((await gw(['kv', 'get', 'KV_GW_ACCOUNT_SYNC_LEASES', 'default'])).stdout) as {
      bucket: string;
      key: string;
    };
    expect(byStreamName).toMatchObject({ bucket: 'GW_ACCOUNT_SYNC_LEASES', key: 'default' });
    expect(await gw(['req', 'bad subject']).catch((e: { code: number }) => e)).toMatchObject({ code: 2 });
    expect(await gw(['kv', 'get', 'bad.bucket', 'k']).catch((e: { code: number }) => e)).toMatchObject({ code: 2 });
    const noBucket = await gw(['kv', 'get', 'NO_SUCH_BUCKET', 'k', '--json']).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect(noBucket).toMatchObject({ code: 1 });
    expect(JSON.parse((noBucket as { stdout: string }).stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('errors say what went wrong and the next step, with exit codes 2 (usage) and 1 (failure)', async () => {
    const usage = await gw(['prices', 'BTC.USD', '1']).catch((e: { code: number; stderr: string }) => e);
    expect(usage).toMatchObject({ code: 2 });
    expect((usage as { stderr: string }).stderr).toContain('next: see `gw prices --help`');
    const unknownOrder = await gw(['orders', '--id', 'no-such-order', '--json']).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect(unknownOrder).toMatchObject({ code: 1 });
    expect(JSON.parse((unknownOrder as { stdout: string }).stdout)).toMatchObject({
      error: { code: 'ORDER_NOT_FOUND', nextStep: expect.stringContaining('gw orders') },
    });

    const noConnector = await gw(['prices', 'BTC.USD', '1', 'BTC', 'T', '--account', 'nobody']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(noConnector).toMatchObject({ code: 1 });
    expect((noConnector as { stderr: string }).stderr).toMatch(
      /no connector serves account "nobody"[\s\S]*next: start the stack/,
    );

    const refused = await gw(['prices', 'NOPE.USD', '1', 'NOPE', 'T']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toMatch(/^gw: .+ \([A-Z]{3}\d{6}\)/);

    const noStatus = await gw(['status', '--account', 'nobody']).catch((e: { code: number; stdout: string }) => e);
    expect(noStatus).toMatchObject({ code: 1 });
    expect((noStatus as { stdout: string }).stdout).toContain('no status');
    // another account's streams are not listed under this one
    expect((noStatus as { stdout: string }).stdout).toContain('no streams of account nobody');
    expect((noStatus as { stdout: string }).stdout).not.toContain('_default');
    const noStatusJson = await gw(['status', '--account', 'nobody', '--json']).catch((e: { stdout: string }) => e);
    expect(JSON.parse(noStatusJson.stdout)).toMatchObject({ account: 'nobody', connector: null, streams: [] });

    const unreachable = await run(process.execPath, [GW, 'status', '--nats', 'nats://127.0.0.1:1']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((unreachable as { stderr: string }).stderr).toContain('next: start the stack with `npm start`');

    // a refused order names the reason of each bad field, not only the field
    const outsidePair = await gw([
      'buy',
      'BTC.USD',
      '0.01',
      'XRP',
      'T',
      '--group',
      GROUP,
      '--strategy',
      'cli-e2e',
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(outsidePair).toMatchObject({ code: 1 });
    expect((outsidePair as { stderr: string }).stderr).toContain('currency must be one of the instrument');
  }, 60_000); // six gw processes one after another

  it('--json failures are one JSON object on stdout, with the same exit codes', async () => {
    const failure = (e: { code: number; stdout: string }) => ({
      code: e.code,
      document: JSON.parse(e.stdout) as unknown,
    });
    expect(await gw(['orders', '--id', 'nope', '--json']).catch(failure)).toMatchObject({
      code: 1,
      document: { error: { code: 'ORDER_NOT_FOUND', message: expect.any(String) } },
    });
    expect(await gw(['prices', 'BTC.USD', '1', '--json']).catch(failure)).toMatchObject({
      code: 2,
      document: { error: { code: 'BAD_ARGUMENT' } },
    });
    const unreachable = await run(process.execPath, [GW, 'balances', '--json', '--nats', 'nats://127.0.0.1:1']).catch(
      failure,
    );
    expect(unreachable).toMatchObject({ code: 1, document: { error: { code: 'NATS_UNREACHABLE' } } });
  });

  it('the common options may come before the command', async () => {
    const status = await run(process.execPath, [GW, '--nats', stack.natsUrl, '--json', 'status'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(JSON.parse(status.stdout)).toMatchObject({ connector: { sessionState: 'open' } });
  });
});

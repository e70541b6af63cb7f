/**
 * `gw buy` and `gw withdrawals submit` when the gateway takes the request and never answers it: on a real
 * nats-server, stand-ins for the execution and account-sync apps keep the first request of each key without
 * answering (as an app that stored the order, then hung), and answer a repeat of the key with what they kept,
 * as the real apps do. The CLI prints the key it generated before sending, reports the outcome UNKNOWN (exit 3,
 * not a failure) with the way on: re-run with `--key <that key>` — which answers the same order or withdrawal,
 * never a second one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AccountSyncSubjects,
  ExecutionSubjects,
  Subjects,
  WithdrawalSubjects,
  type OrderView,
  type PlaceOrderRequest,
  type WithdrawalSubmitRequest,
  type WithdrawalView,
} from '#contracts';
import { startNatsServer, type NatsServerHandle } from '#testing';

const run = promisify(execFile);
const GW = join(process.cwd(), 'bin/gw.js');
const ACCOUNT = 'hung';
const GROUP = '9a000000-0000-4000-8000-000000000001';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('gw: an order or withdrawal the gateway took without answering', () => {
  let nats: NatsServerHandle;
  let apps: NatsConnection;
  /** Balance queries the hung stand-in took (gw is surely past its start-up, signal handlers set, once one is). */
  let balanceAsked = 0;
  /** Every key the stand-ins received, in order, and what each kept per key. */
  const keysReceived: string[] = [];
  const orders = new Map<string, OrderView>();
  const withdrawals = new Map<string, WithdrawalView>();

  beforeAll(async () => {
    nats = await startNatsServer();
    apps = await connect({ servers: nats.url });
    apps.subscribe(new ExecutionSubjects(new Subjects('gw.v1', ACCOUNT)).place, {
      callback: (_error, message) => {
        const request = message.json<PlaceOrderRequest>();
        keysReceived.push(request.idempotencyKey);
        const kept = orders.get(request.idempotencyKey);
        if (kept === undefined) {
          orders.set(request.idempotencyKey, filled(request, `o-${orders.size + 1}`));
          return; // taken, never answered
        }
        message.respond(JSON.stringify({ ok: true, orderId: kept.orderId, duplicate: true, order: kept }));
      },
    });
    apps.subscribe(new WithdrawalSubjects('gw.v1', ACCOUNT).submit, {
      callback: (_error, message) => {
        const request = message.json<WithdrawalSubmitRequest>();
        keysReceived.push(request.idempotencyKey);
        const kept = withdrawals.get(request.idempotencyKey);
        if (kept === undefined) {
          withdrawals.set(request.idempotencyKey, pendingApproval(request, `w${withdrawals.size + 1}`));
          return;
        }
        message.respond(JSON.stringify({ ok: true, withdrawal: kept }));
      },
    });
    // a balance query taken and never answered (a hung account-sync)
    apps.subscribe(new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT)).query('balance'), {
      callback: () => {
        balanceAsked += 1;
      },
    });
    await apps.flush();
  });
  afterAll(async () => {
    await apps?.drain();
    await nats?.stop();
  });

  const gw = async (args: string[]): Promise<Run> => {
    const command = [GW, ...args, '--nats', nats.url, '--account', ACCOUNT, '--timeout', '1'];
    try {
      const { stdout, stderr } = await run(process.execPath, command, { encoding: 'utf8', timeout: 30_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const buy = ['buy', 'BTC.USD', '0.01', 'BTC', 'T', '--group', GROUP, '--strategy', 'cli-hung'];

  /**
   * The command with a long timeout, interrupted (SIGINT, as Ctrl-C) once its stderr or stdout shows `ready`, or
   * once `ready()` says so (a read says nothing while it waits).
   */
  const interrupted = (args: string[], ready: RegExp | (() => boolean)): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [GW, ...args, '--nats', nats.url, '--account', ACCOUNT, '--timeout', '60']);
      const out = { stdout: '', stderr: '' };
      let sent = false;
      const watch = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
        out[stream] += chunk.toString();
        if (!sent && typeof ready !== 'function' && ready.test(out.stdout + out.stderr)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 300); // the request is out by then
        }
      };
      if (typeof ready === 'function') {
        const poll = setInterval(() => {
          if (!ready()) return;
          clearInterval(poll);
          child.kill('SIGINT');
        }, 50);
        child.on('exit', () => clearInterval(poll));
      }
      child.stdout.on('data', watch('stdout'));
      child.stderr.on('data', watch('stderr'));
      child.on('exit', (code) => resolve({ code: code ?? -1, ...out }));
    });

  it('gw buy: the generated key printed first, UNKNOWN with exit 3; the re-run with --key answers that order', async () => {
    const first = await gw(buy);
    expect(first.code).toBe(3);
    const key = keysReceived.at(-1) ?? '';
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.stderr.split('\n')[0]).toBe(`idempotency key ${key} (generated: a retry must pass --key ${key})`);
    expect(first.stdout).toContain('outcome: UNKNOWN');
    expect(first.stdout).toContain(`re-run this command with --key ${key}`);
    expect(first.stdout).toContain(`gw orders --strategy cli-hung --key ${key}`);
    expect(first.stdout).not.toMatch(/FAILED|try again/);

    const again = await gw([...buy, '--key', key]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('order o-1 accepted (same key: the existing order)');
    expect(again.stdout).toContain('outcome: SUCCESS');
    expect(keysReceived.slice(-2)).toEqual([key, key]);
    expect(orders.size).toBe(1); // one order, however often it was asked for
  });

  it('gw buy --json: the outcome line says UNKNOWN with the key and the next step', async () => {
    const first = await gw([...buy, '--json']);
    expect(first.code).toBe(3);
    const key = keysReceived.at(-1) ?? '';
    expect(first.stderr).toContain(`idempotency key ${key}`);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const { outcome } = JSON.parse(lines[0] ?? '') as { outcome: Record<string, unknown> };
    expect(outcome).toMatchObject({
      state: 'UNKNOWN',
      final: false,
      strategyId: 'cli-hung',
      idempotencyKey: key,
      code: 'OUTCOME_UNKNOWN',
    });
    expect(outcome['next']).toContain(`--key ${key}`);
  });

  it('gw withdrawals submit: the key printed, UNKNOWN with exit 3; the re-run with --key answers that request', async () => {
    const submit = ['withdrawals', 'submit', 'fiat', '100.50', 'USD', '--group', GROUP, '--bank-account', 'b-1'];
    const first = await gw([...submit, '--json']);
    expect(first.code).toBe(3);
    const key = keysReceived.at(-1) ?? '';
    expect(first.stderr).toContain(`idempotency key ${key} (generated: a retry must pass --key ${key})`);
    const unknown = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(unknown).toMatchObject({ state: 'UNKNOWN', idempotencyKey: key, code: 'OUTCOME_UNKNOWN' });
    expect(unknown['next']).toContain(`gw withdrawals get --key ${key}`);

    const human = await gw([...submit, '--key', 'payout-9']);
    expect(human.code).toBe(3);
    expect(human.stderr.split('\n')[0]).toBe('idempotency key payout-9');
    expect(human.stdout).toContain('withdrawal (key payout-9): UNKNOWN');
    expect(human.stdout).toContain('re-run this command with --key payout-9');

    const again = await gw([...submit, '--key', key, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ requestId: 'w1', idempotencyKey: key, state: 'PENDING_APPROVAL' });
    expect(withdrawals.size).toBe(2); // the generated key's request and payout-9's: none twice
  });

  it('gw withdrawals submit answered NOT_FOUND (never created: a crash between intent and send): exit 1, the next step', async () => {
    // what account-sync keeps for a key whose request was stored, never sent, and not in the venue's lists since
    withdrawals.set('crashed-1', { ...pendingApproval(submitOf('crashed-1'), 'w-lost'), state: 'NOT_FOUND' });
    const submit = ['withdrawals', 'submit', 'fiat', '1.13', 'USD', '--group', GROUP, '--bank-account', 'b-1'];
    const human = await gw([...submit, '--key', 'crashed-1']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('withdrawal w-lost (key crashed-1): NOT_FOUND — fiat 1.13 USD');
    expect(human.stdout).toContain('never created');
    expect(human.stdout).toContain("next: check the venue's own records before submitting it again under a new key");

    const json = await gw([...submit, '--key', 'crashed-1', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      requestId: 'w-lost',
      idempotencyKey: 'crashed-1',
      state: 'NOT_FOUND',
    });
    expect(keysReceived.filter((key) => key === 'crashed-1')).toHaveLength(2); // asked with its key, answered as kept
  });

  it('gw withdrawals submit answered SUBMITTING (its send mark not written: not sent yet): exit 3, not done', async () => {
    // what account-sync answers when the intent is stored and its send mark could not be written
    withdrawals.set('mark-down-1', { ...pendingApproval(submitOf('mark-down-1'), 'w-wait'), state: 'SUBMITTING' });
    const submit = ['withdrawals', 'submit', 'fiat', '1.17', 'USD', '--group', GROUP, '--bank-account', 'b-1'];
    const human = await gw([...submit, '--key', 'mark-down-1']);
    expect(human.code).toBe(3);
    expect(human.stdout).toContain('withdrawal w-wait (key mark-down-1): SUBMITTING');
    expect(human.stdout).toContain('not sent yet');
    expect(human.stdout).toContain('re-run this command with --key mark-down-1');

    const json = await gw([...submit, '--key', 'mark-down-1', '--json']);
    expect(json.code).toBe(3);
    const answer = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({ requestId: 'w-wait', idempotencyKey: 'mark-down-1', state: 'SUBMITTING' });
    expect(answer['next']).toContain('gw withdrawals get --key mark-down-1');
  });

  it('Ctrl-C while gw buy waits for its answer: UNKNOWN with the key, exit 3 — never a failure', async () => {
    const stopped = await interrupted([...buy, '--key', 'ctrl-c-1'], /idempotency key ctrl-c-1/);
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain('outcome: UNKNOWN');
    expect(stopped.stdout).toContain('interrupted before the answer came');
    expect(stopped.stdout).toContain('re-run this command with --key ctrl-c-1');
  });

  it('Ctrl-C while a read waits: it stops at once, exit 130', async () => {
    const started = Date.now();
    const asked = balanceAsked;
    // interrupted once its query reached the (hung) app: before that, under load, the signal could come while node
    // was still loading gw's modules, with no handler yet (the test failed so, code -1, on a busy machine)
    const stopped = await interrupted(['balances'], () => balanceAsked > asked);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('gw: interrupted');
    expect(Date.now() - started).toBeLessThan(30_000); // not the 60 s request timeout
  });

  it('a usage error is exit 2 before any connection (NATS unreachable or not); gw --json alone is a JSON error', async () => {
    const unreachable = ['--nats', 'nats://127.0.0.1:1', '--timeout', '1'];
    const usageErrors = [
      ['halt'],
      ['orders', '--key', 'k'],
      ['withdrawals', 'submit', 'fiat'],
      ['trades', '--limit', '0'],
    ];
    for (const args of usageErrors) {
      const failed = await run(process.execPath, [GW, ...args, ...unreachable], { encoding: 'utf8' }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed).toMatchObject({ code: 2 });
      expect((failed as { stderr: string }).stderr).not.toContain('NATS_UNREACHABLE');
    }
    const bare = await run(process.execPath, [GW, '--json'], { encoding: 'utf8' }).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(bare).toMatchObject({ code: 2 });
    expect(JSON.parse((bare as { stdout: string }).stdout)).toMatchObject({ error: { code: 'BAD_ARGUMENT' } });
  });
});

function filled(request: PlaceOrderRequest, orderId: string): OrderView {
  return {
    v: 1,
    orderId,
    clientRequestId: `c-${orderId}`,
    idempotencyKey: request.idempotencyKey,
    strategyId: request.strategyId,
    accountGroup: request.accountGroup,
    side: request.side,
    instrument: request.instrument,
    quoteId: 'q-1',
    state: 'SUCCESS',
    final: true,
    acceptedAt: 0,
    updatedAt: 0,
    quoteExpiresAt: 600_000,
  };
}

function submitOf(idempotencyKey: string): WithdrawalSubmitRequest {
  return {
    kind: 'fiat',
    amount: '1.13',
    ccy: 'USD',
    accountGroupUuid: GROUP,
    bankAccountUuid: 'b-1',
    idempotencyKey,
  };
}

function pendingApproval(request: WithdrawalSubmitRequest, requestId: string): WithdrawalView {
  return {
    requestId,
    idempotencyKey: request.idempotencyKey,
    kind: request.kind,
    state: 'PENDING_APPROVAL',
    accountGroupUuid: request.accountGroupUuid,
    ccy: request.ccy,
    amount: request.amount,
    createdAt: 0,
    updatedAt: 0,
  };
}

import { describe, expect, it } from '@jest/globals';
import { GatewayError, OutcomeUnknownError } from '../gateway-error.js';
import { failureDocument } from './failure.js';
import { commandLine, parseCommand } from './options.js';
import { orderArgs } from './order-command.js';
import { bucketName } from './req-command.js';

describe('the command line', () => {
  it('takes the common options before the command as well as after it', () => {
    expect(commandLine(['--nats', 'nats://h:1', 'status'])).toEqual({
      command: 'status',
      args: ['--nats', 'nats://h:1'],
      json: false,
    });
    expect(commandLine(['--json', '--account=acme', '--timeout', '5', 'orders', '--id', 'o-1'])).toEqual({
      command: 'orders',
      args: ['--id', 'o-1', '--json', '--account=acme', '--timeout', '5'],
      json: true,
    });
    expect(commandLine(['status', '--json'])).toEqual({ command: 'status', args: ['--json'], json: true });
    expect(commandLine(['--help'])).toEqual({ command: '--help', args: [], json: false });
    expect(commandLine([])).toEqual({ command: undefined, args: [], json: false });
    // an unknown leading option is left as the command, to be refused by name
    expect(commandLine(['--bogus', 'status']).command).toBe('--bogus');
  });
});

describe('--json failures', () => {
  it('are one JSON object with the code, the message and the next step', () => {
    expect(failureDocument(new GatewayError('NOT_FOUND', 'no such order', 'check the id'))).toEqual({
      error: { code: 'NOT_FOUND', message: 'no such order', nextStep: 'check the id' },
    });
    expect(failureDocument(new Error('boom'))).toEqual({ error: { code: 'INTERNAL', message: 'boom' } });
    const unknown = new OutcomeUnknownError('order', 'k-1', new GatewayError('TIMEOUT', 'no answer'));
    expect(failureDocument(unknown).error).toMatchObject({ code: 'OUTCOME_UNKNOWN', idempotencyKey: 'k-1' });
  });
});

describe('gw buy|sell options', () => {
  const order = ['BTC.USD', '0.01', 'BTC', 'T', '--group', 'g-1', '--strategy', 'manual'];
  it('--send-within <s> becomes the request’s own send deadline, in ms; a bad value is refused by name', () => {
    expect(orderArgs('buy', [...order, '--send-within', '3']).parsed).toMatchObject({
      side: 'BUY',
      sendWithinMs: 3_000,
    });
    expect(orderArgs('sell', order).parsed?.sendWithinMs).toBeUndefined();
    for (const bad of ['0', '-1', '1.5', 'soon'])
      expect(() => orderArgs('buy', [...order, '--send-within', bad])).toThrow(/--send-within/);
  });

  it('gw kv get takes a bucket by its name or by its stream name (KV_<bucket>, as gw streams --all prints it)', () => {
    expect(bucketName('GW_ACCOUNT_SYNC_LEASES')).toBe('GW_ACCOUNT_SYNC_LEASES');
    expect(bucketName('KV_GW_ACCOUNT_SYNC_LEASES')).toBe('GW_ACCOUNT_SYNC_LEASES');
    expect(bucketName('KV_')).toBe('KV_'); // no bucket after the prefix: left for the name check to judge
  });
});

describe('bad arguments are refused locally, in one line (tester t2 F8)', () => {
  const order = ['BTC.USD', '0.01', 'BTC', 'T', '--group', 'g-1', '--strategy', 'manual'];
  const refusal = (run: () => unknown): GatewayError => {
    try {
      run();
    } catch (error) {
      if (error instanceof GatewayError) return error;
      throw error;
    }
    throw new Error('not refused');
  };

  it('an option whose value starts with a dash is refused in one line, without line breaks', () => {
    const error = refusal(() => orderArgs('buy', [...order, '--timeout', '-5']));
    expect(error.code).toBe('BAD_ARGUMENT');
    expect(error.message).toMatch(/'--timeout' argument is ambiguous/);
    expect(error.message).not.toMatch(/[\n\r]/);
    expect(refusal(() => parseCommand('status', ['--nats', '-x'], { nats: { type: 'string' } })).message).not.toMatch(
      /\n/,
    );
  });

  it('an empty --key is refused (exit 2), never sent as an order’s idempotency key', () => {
    const error = refusal(() => orderArgs('sell', [...order, '--key', '']));
    expect(error.code).toBe('BAD_ARGUMENT');
    expect(error.message).toMatch(/--key/);
    expect(orderArgs('sell', [...order, '--key', 'k-1']).parsed?.key).toBe('k-1');
  });
});

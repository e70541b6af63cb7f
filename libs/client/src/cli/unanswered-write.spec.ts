import { describe, expect, it } from '@jest/globals';
import { GatewayError, OutcomeUnknownError } from '../gateway-error.js';
import { announceKey, unansweredJson, unansweredLines } from './unanswered-write.js';

const error = new OutcomeUnknownError('order', 'k-1', new GatewayError('TIMEOUT', 'no answer on gw.v1.a.x in time'));
const write = { what: 'order', idempotencyKey: 'k-1', lookUp: 'gw orders --strategy s --key k-1' };

describe('an unanswered write, rendered', () => {
  it('says the key before sending: the given one as it is, a generated one with how to retry', () => {
    const said: string[] = [];
    const terminal = { error: (text: string) => void said.push(text) };
    expect(announceKey('mine', terminal)).toBe('mine');
    const generated = announceKey(undefined, terminal);
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    expect(said).toEqual([
      'idempotency key mine',
      `idempotency key ${generated} (generated: a retry must pass --key ${generated})`,
    ]);
  });

  it('UNKNOWN (yellow on a terminal), never failed, with the re-run and the look-up', () => {
    expect(unansweredLines('outcome: ', write, error, { colour: false })).toEqual([
      'outcome: UNKNOWN — no answer on gw.v1.a.x in time: the order may or may not have been taken',
      '  next: never ask again with a new key: re-run this command with --key k-1 (the same key answers the same order, never a second one), or look it up: gw orders --strategy s --key k-1',
    ]);
    expect(unansweredLines('', write, error, { colour: true })[0]).toContain('\x1b[33mUNKNOWN\x1b[0m — no answer');
    expect(unansweredJson(write, error)).toEqual({
      state: 'UNKNOWN',
      idempotencyKey: 'k-1',
      code: 'OUTCOME_UNKNOWN',
      message: 'no answer on gw.v1.a.x in time: the order may or may not have been taken',
      next: expect.stringContaining('re-run this command with --key k-1'),
    });
  });
});

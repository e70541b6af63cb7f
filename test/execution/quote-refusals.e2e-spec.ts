/**
 * An order by quote request whose price stream the venue refuses for the request itself (an account group unknown to
 * the user, no price at that size) is refused `QUOTE_REFUSED` with the venue's code in `values.venueCode`: asking
 * again with the same key gets the same answer, so it is not the `QUOTE_UNAVAILABLE` the guide says to ask again
 * after. A refusal that passes (the connector at its stream limit) stays `QUOTE_UNAVAILABLE`, with the connector's
 * code in `values.connectorCode`. Nothing is stored either way: the key stays free.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getOrder, place, startExecutionStack, subjects, type ExecutionStack } from './execution-stack.js';

describe('execution: the connector refuses the stream of a quote request', () => {
  let stack: ExecutionStack;
  let group: string;

  const byRequest = (idempotencyKey: string, fields: Record<string, string> = {}) =>
    place(stack.algo, {
      idempotencyKey,
      strategyId: 'refused',
      accountGroup: group,
      side: 'BUY',
      instrument: 'BTC.USD',
      quantity: '0.5',
      currency: 'BTC',
      tenor: 'T',
      ...fields,
    });

  beforeAll(async () => {
    stack = await startExecutionStack({
      connectorEnv: { VENUE_MAX_STREAMS: '2' },
      executionEnv: { QUOTE_WAIT_MS: '500' },
    });
    group = stack.venue.seed.defaultGroupUuid;
    await stack.startInstance('exec-refused');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('an account group unknown to the venue: QUOTE_REFUSED with venueCode RFS600004, the same again with the same key, nothing stored', async () => {
    const unknownGroup = randomUUID();

    const first = await byRequest('unknown-group', { accountGroup: unknownGroup });
    const again = await byRequest('unknown-group', { accountGroup: unknownGroup });

    const refused = {
      ok: false,
      error: { code: 'QUOTE_REFUSED', values: { venueCode: 'RFS600004' } },
    };
    expect(first).toMatchObject(refused);
    expect(again).toMatchObject(refused);
    expect(await getOrder(stack.algo, { strategyId: 'refused', idempotencyKey: 'unknown-group' })).toMatchObject({
      ok: false,
      error: { code: 'ORDER_NOT_FOUND' },
    });
  });

  it('no price at that size: QUOTE_REFUSED with venueCode RFS100011', async () => {
    const reply = await byRequest('too-large', { quantity: '1000000' });

    expect(reply).toMatchObject({ ok: false, error: { code: 'QUOTE_REFUSED', values: { venueCode: 'RFS100011' } } });
  });

  it('a size finer than its currency holds (SHIB has no decimals): QUOTE_REFUSED with venueCode RFS100009 (t1 F3)', async () => {
    const shib = { instrument: 'SHIB.USD', currency: 'SHIB' };
    const reply = await byRequest('shib-fraction', { ...shib, quantity: '12345.5' });

    expect(reply).toMatchObject({ ok: false, error: { code: 'QUOTE_REFUSED', values: { venueCode: 'RFS100009' } } });
  });

  it('the connector at its stream limit (passes once streams are released): QUOTE_UNAVAILABLE with connectorCode STREAM_LIMIT', async () => {
    for (const quantity of ['0.1', '0.2']) {
      const request = {
        instrument: 'BTC.USD',
        quantity,
        currency: 'BTC',
        tenor: 'T',
        accountGroup: group,
        requester: 'refused-holder',
        leaseSeconds: 600,
      };
      const granted = (
        await stack.algo.request(subjects.streamSubscribe, JSON.stringify(request), { timeout: 10_000 })
      ).json<{ ok: boolean }>();
      expect(granted.ok).toBe(true);
    }

    const reply = await byRequest('at-limit', { quantity: '0.3' });

    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'QUOTE_UNAVAILABLE', values: { connectorCode: 'STREAM_LIMIT' } },
    });
  });
});

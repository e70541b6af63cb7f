/**
 * A kill switch survives NATS losing its store. Outside tester: `gw halt`, then nats-server restarted on the same
 * port with an empty store (≈ 3 s); within 40 s the global state read ACTIVE, `GatewayTradingHalted` resolved, no
 * alert fired and an order filled under a halt nobody lifted. Now the instances that knew the halt write it back
 * (attributed to the gateway, audited) before they take orders again, and each counts the loss by stream.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  RiskBucketName,
  riskSubjects,
  RiskStreamName,
  type PlaceOrderReply,
  type RiskAuditRecord,
  type TradingStatesAnswer,
} from '#contracts';
import { eventually } from '#testing';
import { liveQuotes, metricValue } from '../connector/connector-stack.js';
import { ACCOUNT, place, startExecutionStack, subjects, type ExecutionStack } from './execution-stack.js';

const risk = riskSubjects(subjects);
const STATE_BUCKET = `KV_${RiskBucketName.control(ACCOUNT)}`;

interface Health {
  status: string;
  checks: Record<string, { up: boolean; detail?: string }>;
}

describe('execution: a global HALT survives NATS restarted on an empty store', () => {
  let stack: ExecutionStack;
  let keys = 0;

  const control = async <T>(subject: string, body: unknown): Promise<T> =>
    (await stack.algo.request(subject, JSON.stringify(body), { timeout: 10_000 })).json<T>();
  const order = async (): Promise<PlaceOrderReply> => {
    // after the restart the connector's client reconnects on its own schedule: until then nobody serves streams
    const [quoteId] = await eventually(
      () =>
        liveQuotes(stack.algo, stack.venue, 'store-loss-e2e', 1).catch((error: unknown) => {
          if (String(error).includes('no responders')) return undefined;
          throw error;
        }),
      { what: 'a live quote from the connector', timeoutMs: 30_000 },
    );
    return place(stack.algo, {
      idempotencyKey: `store-loss-${(keys += 1)}`,
      strategyId: 'alpha',
      accountGroup: stack.venue.seed.defaultGroupUuid,
      side: 'BUY',
      quoteId,
    });
  };

  beforeAll(async () => {
    stack = await startExecutionStack();
    await stack.startInstance('exec-a');
    await stack.startInstance('exec-b');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the halt is written back before orders are taken again, audited, counted and told by /health', async () => {
    const halted = await control<{ ok: boolean }>(risk.kill, { by: 'e2e-operator', reason: 'drill' });
    expect(halted).toMatchObject({ ok: true });
    expect(await order()).toMatchObject({ ok: false, error: { code: 'TRADING_HALTED' } });

    await stack.stack.restartNats(undefined, { emptyStore: true });

    // read again by each instance (the algo's own client reconnects on its own schedule)
    for (const instance of stack.instances) {
      const check = await eventually(
        async () => {
          const health = await fetch(`${instance.httpUrl}/health`).then((r) => r.json() as Promise<Health>);
          return health.checks['risk']?.up ? health.checks['risk'] : undefined;
        },
        { what: `${instance.instanceId} read the trading states again`, timeoutMs: 30_000 },
      );
      expect(check.detail).toBe('global HALTED');
    }
    const states = await eventually(
      async () => {
        const answer = await control<TradingStatesAnswer>(risk.stateGet, {}).catch(() => undefined);
        return answer?.ok && answer.readable ? answer : undefined;
      },
      { what: 'the trading states read again', timeoutMs: 30_000 },
    );
    expect(states.global).toMatchObject({ state: 'HALTED', by: 'gateway' });
    const reason = 'reason' in states.global ? states.global.reason : '';
    expect(reason).toContain('restored after the NATS store was lost');
    expect(reason).toContain('e2e-operator');
    const refused = await order();
    expect(refused).toMatchObject({ ok: false, error: { code: 'TRADING_HALTED', values: { by: 'gateway' } } });

    for (const instance of stack.instances) {
      await eventually(
        async () =>
          ((await metricValue(instance.httpUrl, 'bus_streams_lost_total', { stream: STATE_BUCKET })) ?? 0) >= 1 ||
          undefined,
        { what: `${instance.instanceId} counted the lost trading-state bucket` },
      );
      const health = (await (await fetch(`${instance.httpUrl}/health`)).json()) as Health;
      expect(health.status).toBe('ok'); // the instance works: it is told, not taken out of service
      expect(health.checks['nats']).toMatchObject({ up: true, detail: expect.stringContaining('store lost') });
    }

    // audited as the gateway's, whichever instance noticed first (the other found it written and kept it)
    const audit = await eventually(
      async () => {
        const stored = await stack.jsm.streams
          .getMessage(RiskStreamName.audit(ACCOUNT), { last_by_subj: risk.audit('state') })
          .catch(() => undefined);
        return stored?.json<RiskAuditRecord>();
      },
      { what: 'the audit record of the restore' },
    );
    expect(audit).toMatchObject({ kind: 'state', scope: 'global', after: 'HALTED', by: 'gateway', via: 'store-loss' });
  });
});

/**
 * Opens the account's writer lease for the app (lifecycle/app-lifecycle.ts drives it): the lease bucket, the
 * `account-lease` health check and metrics, and what happens when the lease is lost — `failStop`, which in
 * the process (main.ts) exits non-zero at once, so a supervisor starts it again as a standby.
 */
import { BucketName, type BusKv } from '#bus';
import type { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import type { AccountSyncConfig } from '../config.js';
import { AccountLease } from './account-lease.js';
import { newLeaseSelf } from './lease-identity.js';
import { LeaseMetrics } from './lease-metrics.js';

export interface WriterLeaseDependencies {
  readonly kv: BusKv;
  readonly metrics: MetricsRegistry;
  readonly health: HealthRegistry;
  readonly logger: JsonLogger;
  readonly failStop: (reason: string) => void;
}

/** The lease bucket's key of an account (a KV key allows fewer characters than a subject token). */
export function leaseKey(account: string): string {
  return account.replace(/[^A-Za-z0-9_-]/g, '_');
}

export async function openWriterLease(config: AccountSyncConfig, deps: WriterLeaseDependencies): Promise<AccountLease> {
  const bucket = await deps.kv.bucket(BucketName.accountSyncLeases, {
    storage: 'file',
    replicas: config.NATS_REPLICAS,
  });
  const metrics = new LeaseMetrics(deps.metrics, config.ACCOUNT_LEASE_MS);
  deps.health.register('account-lease', () => metrics.health());
  const lease = new AccountLease(bucket, {
    key: leaseKey(config.ACCOUNT),
    leaseMs: config.ACCOUNT_LEASE_MS,
    self: newLeaseSelf(),
    logger: deps.logger,
    events: metrics,
  });
  lease.onLost((reason) => deps.failStop(`account lease lost: ${reason}`));
  return lease;
}

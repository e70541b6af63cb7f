/** What the ledger and withdrawal parts share at start: their stream, and the REST sync's triggers if present. */
import type { ModuleRef } from '@nestjs/core';
import { accountLedgerStreams, type BusStreams } from '#bus';
import type { HealthCheck } from '#observability';
import type { AccountSyncConfig } from '../config.js';
import {
  KNOWN_ACCOUNT_GROUPS,
  SYNC_TRIGGERS,
  type KnownAccountGroups,
  type SyncTriggers,
} from '../sync/sync-triggers.js';

export function ledgerSettingsOf(config: AccountSyncConfig) {
  return {
    duplicateWindowMs: config.ACCOUNT_EVENT_DUPLICATE_WINDOW_MS,
    retentionMs: config.TRANSACTION_RETENTION_MS,
    replicas: config.NATS_REPLICAS,
  };
}

/** Creates or updates the one money-movement stream named `name` (libs/bus/src/account-ledgers.ts). */
export async function ensureLedgerStream(streams: BusStreams, config: AccountSyncConfig, name: string): Promise<void> {
  const definitions = accountLedgerStreams(config.NATS_SUBJECT_PREFIX, config.ACCOUNT, ledgerSettingsOf(config));
  for (const definition of definitions) {
    if (definition.name === name) await streams.ensureStream(definition);
  }
}

/** The REST sync's `SYNC_TRIGGERS` when the app has a sync part (any module), else undefined. */
export function optionalSyncTriggers(modules: ModuleRef): SyncTriggers | undefined {
  return optionalSyncPart<SyncTriggers>(modules, SYNC_TRIGGERS);
}

/** The REST sync's `KNOWN_ACCOUNT_GROUPS` when the app has a sync part, else undefined. */
export function optionalKnownAccountGroups(modules: ModuleRef): KnownAccountGroups | undefined {
  return optionalSyncPart<KnownAccountGroups>(modules, KNOWN_ACCOUNT_GROUPS);
}

function optionalSyncPart<T>(modules: ModuleRef, token: symbol): T | undefined {
  try {
    return modules.get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

/**
 * A store part's health indicator: down while NATS is not connected (its stream or bucket cannot be reached,
 * whatever its last write said), else the part's own check (down after a write failed, until a probe reads).
 */
/** The health of a part a standby (or a start still under way) has not started. */
export const NOT_STARTED = { up: false, detail: 'not started' } as const;

export function storeHealth(connection: { readonly isUp: boolean }, what: string, check: HealthCheck): HealthCheck {
  return () => (connection.isUp ? check() : { up: false, detail: `NATS not connected: ${what} cannot be reached` });
}

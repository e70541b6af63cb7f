/**
 * The account-sync app's mirrored state (libs/contracts/src/account/sync.ts): one KV bucket per resource
 * and the durable stream of every change (deduplicated by `Nats-Msg-Id`, so a restart publishes nothing
 * twice within the window; beyond it the KV's versions keep a change from being seen again).
 */
import { AccountSyncSubjects, MIRRORED_RESOURCES, type MirroredResource } from '#contracts';
import type { StreamDefinition } from './bus-streams.js';

function accountToken(account: string): string {
  return account.replace(/[^A-Za-z0-9_-]/g, '_');
}

export const AccountStateName = {
  events: (account: string) => `GW_ACCT_STATE_EVENTS_${accountToken(account)}`,
  /** Trades and transfers: their events are their store (one message per subject kept, for ever). */
  historyEvents: (account: string) => `GW_ACCT_HISTORY_EVENTS_${accountToken(account)}`,
  bucket: (account: string, resource: MirroredResource) =>
    `GW_ACCT_${resource.replace(/-/g, '_').toUpperCase()}_${accountToken(account)}`,
} as const;

export interface AccountStateSettings {
  duplicateWindowMs: number;
  retentionMs: number;
  replicas?: number;
}

/** Resources whose change events are also their store (no KV bucket): long histories. */
export const HISTORY_RESOURCES: readonly MirroredResource[] = ['trade', 'transfer'];

export function accountStateStreams(
  subjects: AccountSyncSubjects,
  account: string,
  settings: AccountStateSettings,
): StreamDefinition[] {
  const current = MIRRORED_RESOURCES.filter((resource) => !HISTORY_RESOURCES.includes(resource));
  return [
    {
      name: AccountStateName.events(account),
      subjects: [...current.map((resource) => subjects.allStateChanges(resource)), subjects.allDrifts],
      storage: 'file',
      maxAgeMs: settings.retentionMs,
      duplicateWindowMs: settings.duplicateWindowMs,
      replicas: settings.replicas ?? 1,
    },
    {
      // `{resource}.{change}.{key}`: the newest event of each change kind per record, kept for ever, so the
      // sync folds them back into the current record at start (the highest version wins).
      name: AccountStateName.historyEvents(account),
      subjects: HISTORY_RESOURCES.map((resource) => subjects.allStateChanges(resource)),
      storage: 'file',
      maxMsgsPerSubject: 1,
      duplicateWindowMs: settings.duplicateWindowMs,
      replicas: settings.replicas ?? 1,
    },
  ];
}

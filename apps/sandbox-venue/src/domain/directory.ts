/**
 * Who is who at the venue: users, API keys, account groups with their roles, onboarded entities,
 * beneficiaries and senders. Implements the trading half's `UserDirectory` seam.
 */
import { Injectable } from '@nestjs/common';
import type { AccountGroupEntry } from '#venue-api';
import type { UserDirectory } from '../ports.js';
import type { AccountGroupRecord, ApiKeyRecord, Counterparty, PartyRecord, VenueUser } from './model.js';
import { ROLE_OPERATIONS } from './model.js';
import { SEED_BENEFICIARIES, SEED_GROUPS, SEED_KEYS, SEED_ORIGINATORS, SEED_SENDERS, SEED_USERS } from './seed.js';

@Injectable()
export class VenueDirectory implements UserDirectory {
  private readonly users = new Map<string, VenueUser>(SEED_USERS.map((u) => [u.uuid, structuredClone(u)]));
  private readonly keys = new Map<string, ApiKeyRecord>(SEED_KEYS.map((k) => [k.apiKey, structuredClone(k)]));
  private readonly groups = new Map<string, AccountGroupRecord>(SEED_GROUPS.map((g) => [g.uuid, structuredClone(g)]));
  private readonly originators = new Map<string, PartyRecord>(
    SEED_ORIGINATORS.map((o) => [o.uuid, structuredClone(o)]),
  );
  private readonly beneficiaries: Counterparty[] = structuredClone([...SEED_BENEFICIARIES]);
  private readonly senders: Counterparty[] = structuredClone([...SEED_SENDERS]);
  /** Operator fault: the separate participants service that resolves names and aliases is down (§2.7). */
  private participantsUp = true;

  participantsServiceUp(): boolean {
    return this.participantsUp;
  }

  setParticipantsServiceUp(up: boolean): void {
    this.participantsUp = up;
  }

  key(apiKey: string): ApiKeyRecord | undefined {
    return this.keys.get(apiKey);
  }

  user(uuid: string): VenueUser | undefined {
    return this.users.get(uuid);
  }

  group(uuid: string): AccountGroupRecord | undefined {
    return this.groups.get(uuid);
  }

  /** Groups a user can see: owned ones and those where the user holds any role. */
  groupsOf(userUuid: string): AccountGroupRecord[] {
    return [...this.groups.values()].filter((g) => g.ownerUuid === userUuid || g.roles[userUuid] !== undefined);
  }

  canAccessGroup(userUuid: string, groupUuid: string): boolean {
    return this.groupsOf(userUuid).some((g) => g.uuid === groupUuid);
  }

  defaultGroupOf(userUuid: string): AccountGroupRecord | undefined {
    return this.groupsOf(userUuid).find((g) => g.natural && g.ownerUuid === userUuid);
  }

  /** §5.6: the role itself, never its composing permissions, never ownership. */
  hasOperationsRole(userUuid: string, groupUuid: string): boolean {
    return this.groups.get(groupUuid)?.roles[userUuid]?.includes(ROLE_OPERATIONS) ?? false;
  }

  groupsWithOperationsRole(userUuid: string): AccountGroupRecord[] {
    return [...this.groups.values()].filter((g) => g.roles[userUuid]?.includes(ROLE_OPERATIONS));
  }

  originatorOf(groupUuid: string): PartyRecord | undefined {
    const id = this.groups.get(groupUuid)?.originatorUuid;
    return id === undefined ? undefined : this.originators.get(id);
  }

  beneficiariesOf(userUuid: string): PartyRecord[] {
    return this.beneficiaries.filter((b) => b.ownerUuid === userUuid).map((b) => b.record);
  }

  sendersOf(userUuid: string): PartyRecord[] {
    return this.senders.filter((s) => s.ownerUuid === userUuid).map((s) => s.record);
  }

  ownerOf(group: AccountGroupRecord): VenueUser | undefined {
    return this.users.get(group.ownerUuid);
  }

  // ---- UserDirectory (trading seam)

  accountGroupsOf(userUuid: string): AccountGroupEntry[] {
    return this.groupsOf(userUuid).map((g) => ({
      uuid: g.uuid,
      name: g.name,
      natural: g.natural,
      ownerShortcode: this.users.get(g.ownerUuid)?.shortcode,
    }));
  }

  isPairEnabled(userUuid: string, instrument: string): boolean {
    return !(this.users.get(userUuid)?.disabledPairs.includes(instrument) ?? false);
  }

  findCounterparty(
    userUuid: string,
    kind: 'BENEFICIARY' | 'SENDER',
    uuid: string,
  ): { uuid: string; name: string } | undefined {
    const list = kind === 'BENEFICIARY' ? this.beneficiariesOf(userUuid) : this.sendersOf(userUuid);
    const found = list.find((p) => p.uuid === uuid && p.enabled && p.verified);
    return found === undefined ? undefined : { uuid: found.uuid, name: partyName(found) };
  }
}

export function partyName(p: PartyRecord): string {
  return p.type === 'ENTITY' ? (p.companyName ?? '') : `${p.firstname ?? ''} ${p.lastname ?? ''}`.trim();
}

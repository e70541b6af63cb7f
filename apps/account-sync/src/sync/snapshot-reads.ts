/**
 * The resources read whole at every run (transfers, account details §4.6, beneficiaries §4.7, senders §4.8,
 * credit limits, pairs): what is read replaces what is held, in the scope the read covered.
 */
import type { Participant, TransferRecord } from '#venue-api';
import type { ReadContext } from './read-context.js';
import { keyedByUuid, limitsByKey, pairsByKey, type AccountGroupRef } from './venue-reads.js';

export async function readTransfers({ client, mirrors, metrics }: ReadContext): Promise<void> {
  const transfers: TransferRecord[] = [];
  for await (const transfer of client.iterateTransfers()) transfers.push(transfer);
  const fresh = keyedByUuid(transfers);
  metrics.applied('transfers', fresh.size, await mirrors.transfer.apply(fresh));
}

/**
 * §4.6 per account group: one object, or none (404 with an empty body: no originator record). The scope of removals
 * is the groups this read asked the venue about — a 404 removes what was held — never a group listed only since
 * it started (a balances read may run meanwhile): before, a held group that one balances read left out and the next
 * listed again while this read ran lost its details (removed, published) though the venue was never asked.
 * A group created meanwhile is read by the next run.
 */
export async function readAccountDetails(
  { client, mirrors, metrics }: ReadContext,
  groups: () => readonly AccountGroupRef[],
): Promise<void> {
  const fresh = new Map<string, Participant>();
  const asked = new Set<string>();
  for (const group of groups()) {
    asked.add(group.uuid);
    const details = await client.getAccountDetails({ accountGroupUuid: group.uuid });
    if (details !== undefined) fresh.set(group.uuid, details);
  }
  metrics.applied('accountDetails', fresh.size, await mirrors.accountDetails.apply(fresh, (key) => asked.has(key)));
}

/** §4.7/§4.8 per account group, each read to its total (AS6). */
export async function readParticipants(
  { client, mirrors, metrics }: ReadContext,
  kind: 'beneficiary' | 'sender',
  groups: readonly AccountGroupRef[],
): Promise<void> {
  // The read covers every group it knows: with none known (no balances read yet) it would remove them all.
  if (groups.length === 0) throw new Error('no account groups known yet (balances not read)');
  const fresh = new Map<string, Participant>();
  let unreadable = 0;
  for (const group of groups) {
    const query = { accountGroupUuid: group.uuid };
    const listing =
      kind === 'beneficiary' ? await client.listAllBeneficiaries(query) : await client.listAllSenders(query);
    for (const [key, participant] of keyedByUuid(listing.records)) fresh.set(key, participant);
    unreadable += listing.unreadable;
  }
  const resource = kind === 'beneficiary' ? 'beneficiaries' : 'senders';
  // A row left out as unreadable may be a record held: only a read that left none out tells removals.
  const scope = unreadable === 0 ? () => true : undefined;
  metrics.applied(resource, fresh.size, await mirrors[kind].apply(fresh, scope));
}

export async function readCreditLimits({ client, mirrors, metrics }: ReadContext): Promise<void> {
  const limits = await client.getCreditLimits();
  const fresh = limitsByKey(limits.data);
  metrics.applied('creditLimits', fresh.size, await mirrors.limit.apply(fresh, () => true));
}

export async function readPairs({ client, mirrors, metrics }: ReadContext): Promise<void> {
  const fresh = pairsByKey(await client.listPairs());
  metrics.applied('pairs', fresh.size, await mirrors.pair.apply(fresh, () => true));
}

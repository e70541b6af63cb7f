/**
 * The balances (§4.4) and their check against the transaction legs that moved them (AS8): each drift is counted
 * and published, never "fixed". The balances read also tells the account groups the per-group reads walk.
 */
import { driftMsgId, type BalanceDrift, type BalanceState } from '#contracts';
import type { BalanceCheckState, LegsByUuid } from './balance-check.js';
import type { ReadContext } from './read-context.js';
import { balanceStates, type AccountGroupRef } from './venue-reads.js';

/** The transaction legs held, and the balance check's view of them, kept as each is held (transaction-reads.ts). */
export interface HeldLegs {
  readonly held: LegsByUuid;
  readonly balanceCheck: BalanceCheckState;
}

export class BalanceReads {
  /** The account groups seen in the last balances read (participants and details are read per group). */
  groups: AccountGroupRef[] = [];
  /** The same groups' uuids, for a lookup; undefined until the first balances read of this life. */
  knownGroups: ReadonlySet<string> | undefined;
  private readAt: number | undefined;
  private readonly reportedDrifts = new Set<string>();

  constructor(
    private readonly ctx: ReadContext,
    private readonly publishDrift: (drift: BalanceDrift) => Promise<void>,
  ) {}

  /** Reads every balance, then checks them against `legs`. */
  async run(legs: HeldLegs): Promise<void> {
    const { client, mirrors, metrics, now } = this.ctx;
    const answer = await client.getBalances({ filterZeroBalanceAccounts: false });
    const { groups, states } = balanceStates(answer);
    const readAt = answer.timestamp !== undefined && /^\d+$/.test(answer.timestamp) ? Number(answer.timestamp) : now();
    this.groups = groups;
    this.knownGroups = new Set(groups.map((group) => group.uuid));
    // A currency or a group no longer listed is removed (the read covers every group and currency).
    const result = await mirrors.balance.apply(states, () => true);
    this.readAt = readAt;
    metrics.applied('balances', states.size, result);
    metrics.currenciesHeld(new Set([...states.values()].map((state) => state.ccy)));
    await this.check(legs);
  }

  /** Balances against the legs that moved them (AS8); each drift is counted and published, never "fixed". */
  async check(legs: HeldLegs): Promise<void> {
    if (this.readAt === undefined || legs.held.size === 0) return;
    const { mirrors, metrics, log } = this.ctx;
    const balances = new Map(mirrors.balance.keys().map((key) => [key, mirrors.balance.get(key) as BalanceState]));
    const drifts = legs.balanceCheck.drifts(balances, this.readAt, this.ctx.now());
    metrics.driftsOpen.set(drifts.length);
    for (const drift of drifts) {
      const id = driftMsgId(drift);
      if (this.reportedDrifts.has(id)) continue;
      log.warn('balance does not match its newest transaction leg', { ...drift });
      await this.publishDrift(drift); // not published: reported again by the next check
      this.reportedDrifts.add(id);
      metrics.drifts.inc({ ccy: drift.ccy });
    }
  }
}

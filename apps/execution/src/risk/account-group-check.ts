/**
 * Whether an account group a halt or a limit change names is one the venue lists for this account (the
 * connector's `account-groups.get`). A mistyped id would otherwise be stored, audited and answered `ok` while
 * it applies to no order: the operator believes a group halted that is not. The change is never refused for it
 * (a halt must work while the connector is down, and a group may be added later): the answer carries a warning.
 */
import { canonicalScopeId } from './limits.js';
import type { RiskControlWarning } from './risk-metrics.js';

/** The account groups' uuids as the connector lists them (throws when it cannot be asked or refuses). */
export type AccountGroupSource = () => Promise<readonly string[]>;

export interface AccountGroupWarning {
  reason: Extract<RiskControlWarning, 'unlisted-account-group' | 'account-groups-unchecked'>;
  text: string;
}

/** A list read this recently is used again; an id not in it asks once more (a group may just have been added). */
const FRESH_MS = 60_000;
const MAX_DETAIL = 200;

export class AccountGroupCheck {
  private known: { at: number; uuids: ReadonlySet<string> } | undefined;

  constructor(
    private readonly source: AccountGroupSource,
    private readonly now: () => number,
  ) {}

  /** Undefined when the venue lists `id`; otherwise what the operator must be told, and why (a metric label). */
  async warningFor(id: string): Promise<AccountGroupWarning | undefined> {
    const wanted = canonicalScopeId('accountGroup', id);
    const cached = this.known;
    if (cached !== undefined && this.now() - cached.at < FRESH_MS && cached.uuids.has(wanted)) return undefined;
    let uuids: ReadonlySet<string>;
    try {
      uuids = new Set((await this.source()).map((uuid) => canonicalScopeId('accountGroup', uuid)));
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_DETAIL);
      return {
        reason: 'account-groups-unchecked',
        text: `accountGroup not checked against the venue's account groups (the connector did not list them: ${reason})`,
      };
    }
    this.known = { at: this.now(), uuids };
    if (uuids.has(wanted)) return undefined;
    return {
      reason: 'unlisted-account-group',
      text:
        `accountGroup is not one of the ${uuids.size} account groups the venue lists for this account: ` +
        'it applies to no order unless one names it',
    };
  }
}

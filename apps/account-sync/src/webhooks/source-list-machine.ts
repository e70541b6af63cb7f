/**
 * The webhook source address list (ips.json, §4.12) as a pure transition: what a fetch result does to the
 * list held. Reloaded only when `version` changes; the last good list is kept when a fetch fails or brings
 * an unusable list; a non-null `change_notice` is announced once per notice. `admitSource` judges a sender.
 */
import type { WebhookChangeNotice, WebhookSourceAddresses } from '#venue-api';
import { CidrSet } from './cidr-set.js';

export interface SourceListState {
  /** Undefined until a list was loaded once. */
  version: number | undefined;
  addresses: CidrSet;
  cidrs: readonly string[];
  changeNotice: WebhookChangeNotice | null;
  /** Epoch ms of the last successful fetch (loaded or unchanged). */
  lastGoodFetchAt: number | undefined;
  consecutiveFailures: number;
  /** Epoch ms of the last refresh a refused sender asked for (at most one per gap, whoever asks). */
  refusalRefreshAt: number | undefined;
}

export type SourceListEvent =
  { kind: 'fetched'; list: WebhookSourceAddresses } | { kind: 'fetch-failed'; reason: string };

export type SourceListEffect =
  | { kind: 'loaded'; version: number; previousVersion: number | undefined; blocks: number; invalid: string[] }
  | { kind: 'change-notice'; notice: WebhookChangeNotice }
  | { kind: 'kept-last-good'; reason: string; consecutiveFailures: number };

export const initialSourceList: SourceListState = {
  version: undefined,
  addresses: CidrSet.empty(),
  cidrs: [],
  changeNotice: null,
  lastGoodFetchAt: undefined,
  consecutiveFailures: 0,
  refusalRefreshAt: undefined,
};

export function sourceListTransition(
  state: SourceListState,
  event: SourceListEvent,
  env: { now: number },
): { state: SourceListState; effects: SourceListEffect[] } {
  if (event.kind === 'fetch-failed') {
    const failures = state.consecutiveFailures + 1;
    return {
      state: { ...state, consecutiveFailures: failures },
      effects: [{ kind: 'kept-last-good', reason: event.reason, consecutiveFailures: failures }],
    };
  }
  const { list } = event;
  const effects: SourceListEffect[] = [];
  let next: SourceListState = { ...state, lastGoodFetchAt: env.now, consecutiveFailures: 0 };
  if (list.version !== state.version) {
    const { set, invalid } = CidrSet.parse(list.ipv4_cidrs);
    if (set.size === 0) {
      // An empty or unreadable list would refuse every webhook (403, which the venue does not retry): keep the
      // last good one — or, with none loaded yet, stay unloaded (webhooks answered 503, the list read again).
      return {
        state: { ...state, consecutiveFailures: state.consecutiveFailures + 1 },
        effects: [
          {
            kind: 'kept-last-good',
            reason: `version ${list.version} holds no usable address block`,
            consecutiveFailures: state.consecutiveFailures + 1,
          },
        ],
      };
    }
    next = { ...next, version: list.version, addresses: set, cidrs: list.ipv4_cidrs.slice(0, 1_000) };
    effects.push({ kind: 'loaded', version: list.version, previousVersion: state.version, blocks: set.size, invalid });
  }
  if (list.change_notice !== null && !sameNotice(list.change_notice, state.changeNotice)) {
    effects.push({ kind: 'change-notice', notice: list.change_notice });
  }
  next = { ...next, changeNotice: list.change_notice };
  return { state: next, effects };
}

function sameNotice(a: WebhookChangeNotice, b: WebhookChangeNotice | null): boolean {
  return b !== null && a.message === b.message && a.effective_date === b.effective_date;
}

/**
 * What the receiver answers a sender: `allowed`; `unready` (no list yet: 503); `retry` (503) for an address
 * outside the list while that may be our list's fault — a refresh it asked for or one already running, or a
 * `change_notice` (before or after its effective_date: the venue moves, its list may lag); `refused` (403, never
 * retried by the venue, §6.1 rule 5) once a refresh still excludes it. Refreshes asked by senders are at most one
 * per `refusedRefreshGapMs` and nothing is kept per address, so a flood from random addresses stays bounded.
 */
export type SourceVerdict = 'allowed' | 'unready' | 'retry' | 'refused';

export function admitSource(
  state: SourceListState,
  address: string,
  env: { now: number; refreshing: boolean; refusedRefreshGapMs: number },
): { state: SourceListState; verdict: SourceVerdict; refresh: boolean } {
  if (state.version === undefined) return { state, verdict: 'unready', refresh: false };
  if (state.addresses.contains(address)) return { state, verdict: 'allowed', refresh: false };
  const refresh =
    !env.refreshing &&
    (state.refusalRefreshAt === undefined || env.now - state.refusalRefreshAt >= env.refusedRefreshGapMs);
  const verdict = refresh || env.refreshing || state.changeNotice !== null ? 'retry' : 'refused';
  return { state: refresh ? { ...state, refusalRefreshAt: env.now } : state, verdict, refresh };
}

/**
 * A newest-first venue list (trades, transaction legs) read between full reads: the recent read and the sweep of
 * list-walks.ts, with where each of them stands. The list itself says how a page is read and what is held.
 */
import {
  RECENT_FIRST_PAGE,
  recentReadEnds,
  sweepPassEnds,
  sweepWindowStart,
  type PageSeen,
  type SweepPass,
} from './list-walks.js';
import type { ReadContext } from './read-context.js';

/** One page read and handed on: what the walk decides by, and the newest time on it. */
export interface WalkedPage {
  seen: PageSeen;
  newestAt: number | undefined;
}

export interface NewestFirstListDeps extends Pick<ReadContext, 'overlapMs' | 'sweepPages' | 'now' | 'stop' | 'log'> {
  /** Names the list in the logs (`trade`, `transaction`). */
  name: string;
  /** Rows of a whole page. */
  pageSize: number;
  /** Reads one page, hands its records on, and tells what it saw. */
  readPage(request: { max: number; offset: number; from?: string }): Promise<WalkedPage>;
  /** The newest record held and the oldest still pending (epoch ms): where a new sweep pass starts. */
  heldSpan(): { newestHeld: number | undefined; oldestPending: number | undefined };
}

export class NewestFirstList {
  /** The sweep pass in progress; undefined: the next periodic run starts one. */
  private pass: SweepPass | undefined;
  /** Newest time the last good recent read started from: after a failed one, the next walks down to it again. */
  private readDownTo: number | undefined;

  constructor(private readonly deps: NewestFirstListDeps) {}

  /** Newest first until a page shows a record held in the same state (list-walks.ts). */
  async readRecent(): Promise<void> {
    const floor = this.readDownTo;
    let startedFrom: number | undefined;
    let offset = 0;
    for (let max = RECENT_FIRST_PAGE; ; max = this.deps.pageSize) {
      const { seen, newestAt } = await this.deps.readPage({ max, offset });
      if (startedFrom === undefined) startedFrom = newestAt;
      offset += seen.rows;
      if (recentReadEnds(seen, floor)) break;
      this.deps.stop.check();
    }
    if (startedFrom !== undefined && (floor === undefined || startedFrom > floor)) this.readDownTo = startedFrom;
  }

  /**
   * At most `sweepPages` pages of the sweep's pass (a new one from the oldest pending record when none);
   * returns the pass when this run ended it.
   */
  async sweep(): Promise<SweepPass | undefined> {
    const { name, pageSize, sweepPages, log } = this.deps;
    let pass = this.pass ?? this.newPass();
    for (let page = 0; page < sweepPages; page += 1) {
      const from = pass.from === undefined ? {} : { from: new Date(pass.from).toISOString() };
      const { seen, newestAt } = await this.deps.readPage({ max: pageSize, offset: pass.offset, ...from });
      pass = { ...pass, offset: pass.offset + seen.rows };
      if (sweepPassEnds(seen, pass.from, newestAt)) {
        this.pass = undefined;
        log.debug(`${name} sweep pass ended`, { rows: pass.offset, ms: this.deps.now() - pass.startedAt });
        return pass;
      }
      this.pass = pass;
      this.deps.stop.check();
    }
    return undefined;
  }

  /** A full read covered the list: the next periodic run starts a new pass. */
  endSweep(): void {
    this.pass = undefined;
  }

  /** A record of this time was not handed on: the next recent read walks down to it again. */
  readAgainFrom(at: number): void {
    if (this.readDownTo !== undefined && at <= this.readDownTo) this.readDownTo = at - 1;
  }

  private newPass(): SweepPass {
    const { newestHeld, oldestPending } = this.deps.heldSpan();
    return {
      from: sweepWindowStart(newestHeld, oldestPending, this.deps.overlapMs),
      offset: 0,
      startedAt: this.deps.now(),
    };
  }
}

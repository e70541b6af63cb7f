/**
 * The trade list (§4.5, AS9): at start the whole list, pages in flight together; then what is new at every run,
 * the trades a transaction webhook said moved, and a few pages of the sweep at the periodic ones (list-walks.ts).
 */
import type { Page, Trade, TradePageRequest } from '#venue-api';
import { createdAtOf, HeldTradeSpan } from './held-trade-span.js';
import { timeSpan } from './list-walks.js';
import { NewestFirstList, type WalkedPage } from './newest-first-list.js';
import type { ReadContext, SyncMode } from './read-context.js';
import { keyedByUuid } from './venue-reads.js';

const TRADE_PAGE = 200;
/** Trade pages asked for at once during a full read (the limiter still spaces them). */
const TRADE_PAGES_IN_FLIGHT = 8;
/** Trades a transaction webhook said moved, looked up by tradeRef per run at most (the sweep finds the rest). */
const MAX_TRADE_LOOKUPS = 20;
/** Trade references waiting for a lookup, at most (more are left to the sweep). */
const MAX_TRADES_NOTED = 1_000;
/** Trade pages being written to NATS at once while later pages are read. */
const APPLYING_PAGES = 8;

export class TradeReads {
  private readonly list: NewestFirstList;
  /** Trades a transaction's final state says moved (their tradeRef): looked up at the next trade run. */
  private readonly movedTrades = new Set<string>();
  /** Set once a full read ended well: an incremental read after a failed full one would never read older pages. */
  private fullyRead = false;
  /** The newest trade held and the oldest pending, kept as the mirror changes: built at the first pass start. */
  private heldTimes: HeldTradeSpan | undefined;

  constructor(private readonly ctx: ReadContext) {
    this.list = new NewestFirstList({
      ...ctx,
      name: 'trade',
      pageSize: TRADE_PAGE,
      readPage: (request) => this.readPage(request),
      heldSpan: () => this.heldSpan().span(),
    });
  }

  /** AS9: at start the whole list; then what is new at every run, and a few pages of the sweep at the periodic ones. */
  async run(mode: SyncMode): Promise<void> {
    if (mode === 'full' || !this.fullyRead) return this.readAll();
    await this.list.readRecent();
    await this.lookUpMovedTrades();
    if (mode === 'incremental') await this.list.sweep();
  }

  /**
   * A transaction leg of this trade reached a final state (its webhook): the trade has probably moved too, so it
   * is looked up by tradeRef at the next trade run rather than waiting for the sweep (bounded; extra ones wait).
   */
  noteTradeMoved(tradeRef: string): void {
    if (this.movedTrades.size < MAX_TRADES_NOTED) this.movedTrades.add(tradeRef);
  }

  /**
   * §4.5: every trade, newest first, pages in flight together; ends at a short page. A failed page fails the
   * run once: the pages still in flight and being applied are waited for (none left to reject unhandled).
   */
  private async readAll(): Promise<void> {
    const { client, mirrors, metrics, stop } = this.ctx;
    const seen = new Set<string>();
    let nextOffset = 0;
    let ended = false;
    const applying: Array<Promise<unknown>> = [];
    const inFlight: Array<Promise<Page<Trade>>> = [];
    const ask = () => {
      const page = client.listTrades({ max: TRADE_PAGE, offset: nextOffset });
      page.catch(() => undefined); // handled: awaited in order below, or settled when an earlier page failed
      inFlight.push(page);
      nextOffset += TRADE_PAGE;
    };
    let read = 0;
    try {
      for (let i = 0; i < TRADE_PAGES_IN_FLIGHT; i += 1) ask();
      while (inFlight.length > 0) {
        const page = await (inFlight.shift() as Promise<Page<Trade>>);
        // The rows the venue sent, read or not: a row left out as unreadable must not end the walk early.
        if (page.rows < TRADE_PAGE || stop.stopped) ended = true;
        if (!ended) ask();
        const fresh = new Map<string, Trade>();
        for (const [key, trade] of keyedByUuid(page.data)) {
          if (seen.has(key)) continue;
          seen.add(key);
          fresh.set(key, trade);
        }
        read += fresh.size;
        // Pages are applied while the next ones are read; at most APPLYING_PAGES at once (bounded memory).
        const applied = mirrors.trade.apply(fresh).then((result) => metrics.applied('trades', fresh.size, result));
        applied.catch(() => undefined); // handled: awaited below
        applying.push(applied);
        if (applying.length >= APPLYING_PAGES) await applying.shift();
        if (ended) {
          // Pages asked beyond the end come back empty or short; wait for them without asking more.
          await Promise.allSettled(inFlight.splice(0));
        }
      }
      await Promise.all(applying.splice(0));
    } catch (error) {
      await Promise.allSettled([...inFlight.splice(0), ...applying.splice(0)]);
      throw error;
    }
    stop.check();
    this.fullyRead = true;
    this.ctx.log.info('trade history read', { trades: read, held: mirrors.trade.size });
  }

  /** Reads one page of trades, applies it, and tells what it saw. */
  private async readPage(request: TradePageRequest & { max: number }): Promise<WalkedPage> {
    const { client, mirrors, metrics } = this.ctx;
    const page = await client.listTrades(request);
    const fresh = keyedByUuid(page.data);
    let heldUnchanged = false;
    for (const [key, trade] of fresh) {
      if (mirrors.trade.get(key)?.state === trade.state) heldUnchanged = true;
    }
    const span = timeSpan(page.data.map((trade) => createdAtOf(trade)));
    metrics.applied('trades', fresh.size, await mirrors.trade.apply(fresh));
    return { seen: { rows: page.rows, max: request.max, heldUnchanged, oldestAt: span.oldest }, newestAt: span.newest };
  }

  /**
   * Where a sweep pass starts is kept as the trade mirror changes: the first pass start walks the trades held
   * once (the mirror tells them to its new watcher), later ones cost O(1) amortised (held-trade-span.ts).
   */
  private heldSpan(): HeldTradeSpan {
    if (this.heldTimes === undefined) {
      const trades = this.ctx.mirrors.trade;
      const span = new HeldTradeSpan(() => trades.iterate());
      trades.watch((key, previous, value) => span.held(key, previous, value));
      this.heldTimes = span;
    }
    return this.heldTimes;
  }

  private async lookUpMovedTrades(): Promise<void> {
    for (const tradeRef of [...this.movedTrades].slice(0, MAX_TRADE_LOOKUPS)) {
      await this.readPage({ tradeRef, max: TRADE_PAGE });
      this.movedTrades.delete(tradeRef);
    }
  }
}

/**
 * The shell of the ips.json list: fetches it at start and on a schedule, one fetch at a time, feeds each
 * result to the pure `sourceListTransition` and carries out its effects (logs, metrics). The receiver asks
 * `admit(address)` (the pure `admitSource`: a sender outside the list asks for a refresh, at most one per
 * `refusedRefreshGapMs`); `/health` is down while no list was ever loaded.
 */
import type { Cancel, Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { WebhookSourceAddresses } from '#venue-api';
import {
  admitSource,
  initialSourceList,
  sourceListTransition,
  type SourceListEffect,
  type SourceListEvent,
  type SourceListState,
  type SourceVerdict,
} from './source-list-machine.js';
import type { WebhookMetrics } from './webhook-metrics.js';

export interface WebhookSourceListOptions {
  refreshMs: number;
  /** While no list was ever loaded, fetches are retried this often (default 5 s, at most `refreshMs`). */
  unloadedRetryMs?: number;
  /** A sender outside the list asks for a refresh at most this often (default 10 s), whatever the number of senders. */
  refusedRefreshGapMs?: number;
}

export class WebhookSourceList {
  private state: SourceListState = initialSourceList;
  private cancelTimer: Cancel | undefined;
  private cancelRetry: Cancel | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly options: WebhookSourceListOptions,
    private readonly clock: Clock,
    private readonly metrics: WebhookMetrics,
    private readonly logger: JsonLogger,
    /** The app's venue REST client's `getWebhookSourceAddresses` (GET ips.json, read losslessly). */
    private readonly fetchList: () => Promise<WebhookSourceAddresses>,
  ) {}

  /** Fetches once (a failure is logged, not thrown: the receiver answers 503 until a list loads) and schedules. */
  async start(): Promise<void> {
    await this.refresh();
    this.cancelTimer = this.clock.setInterval(() => void this.refresh(), this.options.refreshMs);
    this.retryWhileUnloaded();
  }

  stop(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
  }

  /** Without a list every webhook gets 503: try again soon rather than at the next scheduled refresh. */
  private retryWhileUnloaded(): void {
    if (this.loaded || this.cancelTimer === undefined) return;
    const delay = Math.min(this.options.unloadedRetryMs ?? 5_000, this.options.refreshMs);
    this.cancelRetry = this.clock.setTimeout(() => {
      this.cancelRetry = undefined;
      void this.refresh().then(() => this.retryWhileUnloaded());
    }, delay);
  }

  get loaded(): boolean {
    return this.state.version !== undefined;
  }

  get version(): number | undefined {
    return this.state.version;
  }

  /** The verdict on a sender; one outside the list may start a refresh (the venue's retry then meets the new list). */
  admit(address: string): SourceVerdict {
    const next = admitSource(this.state, address, {
      now: this.clock.now(),
      refreshing: this.inFlight !== undefined,
      refusedRefreshGapMs: this.options.refusedRefreshGapMs ?? 10_000,
    });
    this.state = next.state;
    if (next.refresh) void this.refresh();
    return next.verdict;
  }

  health(): { up: boolean; detail?: string } {
    if (!this.loaded) return { up: false, detail: 'webhook source list (ips.json) never loaded: webhooks get 503' };
    if (this.state.consecutiveFailures > 0) {
      return { up: true, detail: `ips.json fetch failing (${this.state.consecutiveFailures}); last good list kept` };
    }
    return { up: true };
  }

  /** One fetch; concurrent callers share it. */
  refresh(): Promise<void> {
    this.inFlight ??= this.fetchOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchOnce(): Promise<void> {
    let event: SourceListEvent;
    try {
      event = { kind: 'fetched', list: await this.fetchList() };
    } catch (error) {
      event = { kind: 'fetch-failed', reason: (error instanceof Error ? error.message : String(error)).slice(0, 200) };
    }
    const next = sourceListTransition(this.state, event, { now: this.clock.now() });
    this.state = next.state;
    for (const effect of next.effects) this.execute(effect);
    if (this.state.lastGoodFetchAt !== undefined) this.metrics.ipsLastGoodFetch.set(this.state.lastGoodFetchAt / 1_000);
    this.metrics.ipsChangeNotice.set(this.state.changeNotice === null ? 0 : 1);
  }

  private execute(effect: SourceListEffect): void {
    switch (effect.kind) {
      case 'loaded':
        this.metrics.ipsVersion.set(effect.version);
        this.metrics.ipsBlocks.set(effect.blocks);
        this.logger.info('webhook source list loaded', {
          version: effect.version,
          previousVersion: effect.previousVersion,
          blocks: effect.blocks,
          ...(effect.invalid.length > 0 ? { invalidEntries: effect.invalid.slice(0, 10) } : {}),
        });
        return;
      case 'change-notice':
        // once per notice: a notice the venue keeps publishing is neither logged nor counted again
        if (effect.notice.oddities !== undefined) this.metrics.ipsNoticeOdd.inc();
        this.logger.warn('webhook source list announces a change', {
          message: effect.notice.message?.slice(0, 500),
          effectiveDate: effect.notice.effective_date?.slice(0, 64),
          ...(effect.notice.oddities !== undefined ? { oddities: effect.notice.oddities.slice(0, 5) } : {}),
        });
        return;
      case 'kept-last-good':
        this.metrics.ipsFetchFailures.inc();
        this.logger.warn('webhook source list not refreshed; last good list kept', {
          reason: effect.reason,
          consecutiveFailures: effect.consecutiveFailures,
          version: this.state.version,
        });
        return;
    }
  }
}

/**
 * Transaction notifications to the client's registered URL (§6.1): POST JSON, one delivery in flight per
 * target and at most one per `webhookMinIntervalMs` (rule 7), acknowledged by any 2xx (rule 4), 4xx never
 * retried, 5xx / connection errors / timeouts retried per R14 (rule 5). Operators can re-send a
 * notification (duplicate, rule 3) or an older state after a newer one (out of order).
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { JsonLogger } from '#observability';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import { writeJson, type WireValue } from '../http/json.js';
import { VenueMetrics } from '../venue-metrics.js';
import { MAX_TIMEOUT_RETRIES, retryDelayMs } from './backoff-schedule.js';

interface Delivery {
  seq: number;
  target: string;
  transactionUuid: string;
  body: string;
  retries: number;
  timeoutRetries: number;
  dueAt: number;
}

export type DeliveryOutcome = 'delivered' | 'rejected' | 'retry' | 'gave_up';

@Injectable()
export class WebhookDispatcher implements OnModuleDestroy {
  private target: string | undefined;
  private readonly queue: Delivery[] = [];
  /** Bodies sent per transaction, oldest first (operator replays). */
  private readonly history = new Map<string, string[]>();
  private seq = 0;
  private sending = false;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;
  /** Operator fault: hold the next notification back until the one after it has gone. */
  private holdNext = false;
  private held: Delivery | undefined;

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(VenueMetrics) private readonly metrics: VenueMetrics,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {
    this.target = config.webhookUrl;
  }

  targetUrl(): string | undefined {
    return this.target;
  }

  setTarget(url: string | undefined): void {
    this.target = url;
  }

  notify(transactionUuid: string, body: WireValue): void {
    const text = writeJson(body);
    const sent = this.history.get(transactionUuid) ?? [];
    sent.push(text);
    this.history.set(transactionUuid, sent);
    this.enqueue(transactionUuid, text);
  }

  /** Operator: send the latest notification of a transaction again. */
  duplicate(transactionUuid: string): boolean {
    const sent = this.history.get(transactionUuid);
    const last = sent?.[sent.length - 1];
    if (last === undefined) return false;
    this.enqueue(transactionUuid, last);
    return true;
  }

  /** Operator: send the first (PENDING) notification again, after the newer state went out. */
  resendStale(transactionUuid: string): boolean {
    const first = this.history.get(transactionUuid)?.[0];
    if (first === undefined) return false;
    this.enqueue(transactionUuid, first);
    return true;
  }

  /** Operator: the next notification is delivered after the one that follows it. */
  swapNext(): void {
    this.holdNext = true;
  }

  pendingDeliveries(): number {
    return this.queue.length + (this.held === undefined ? 0 : 1) + (this.sending ? 1 : 0);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const c of this.inFlight) c.abort();
  }

  private enqueue(transactionUuid: string, body: string): void {
    if (this.target === undefined || this.closed) {
      this.metrics.webhookDeliveries.inc({ outcome: 'no_target' });
      return;
    }
    const delivery: Delivery = {
      seq: this.seq++,
      target: this.target,
      transactionUuid,
      body,
      retries: 0,
      timeoutRetries: 0,
      dueAt: performance.now(),
    };
    if (this.holdNext) {
      this.holdNext = false;
      this.held = delivery;
      return;
    }
    this.queue.push(delivery);
    if (this.held !== undefined) {
      const held = this.held;
      this.held = undefined;
      held.seq = this.seq++;
      held.dueAt = performance.now();
      this.queue.push(held);
    }
    this.pump();
  }

  private pump(): void {
    if (this.sending || this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    this.queue.sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq);
    const next = this.queue[0];
    if (next === undefined) return;
    const now = performance.now();
    const startAt = Math.max(next.dueAt, this.lastSentAt + this.config.webhookMinIntervalMs);
    if (startAt > now) {
      this.timer = setTimeout(() => this.pump(), Math.ceil(startAt - now));
      return;
    }
    this.queue.shift();
    this.sending = true;
    this.lastSentAt = now;
    void this.deliver(next).finally(() => {
      this.sending = false;
      this.pump();
    });
  }

  private async deliver(d: Delivery): Promise<void> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(new Error('timeout')), this.config.webhookTimeoutMs);
    let outcome: 'ok' | 'client_error' | 'server_error' | 'timeout' | 'connection_error';
    try {
      const res = await fetch(d.target, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: d.body,
        signal: controller.signal,
      });
      await res.arrayBuffer().catch(() => undefined);
      outcome = res.status >= 200 && res.status < 300 ? 'ok' : res.status >= 500 ? 'server_error' : 'client_error';
    } catch {
      if (this.closed) return;
      outcome = controller.signal.aborted ? 'timeout' : 'connection_error';
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    this.settle(d, outcome);
  }

  private settle(d: Delivery, outcome: 'ok' | 'client_error' | 'server_error' | 'timeout' | 'connection_error'): void {
    if (outcome === 'ok') {
      this.metrics.webhookDeliveries.inc({ outcome: 'delivered' });
      return;
    }
    if (outcome === 'client_error') {
      this.metrics.webhookDeliveries.inc({ outcome: 'rejected' });
      return;
    }
    this.metrics.webhookDeliveries.inc({ outcome });
    if (outcome === 'timeout') {
      if (d.timeoutRetries >= MAX_TIMEOUT_RETRIES) return this.giveUp(d);
      d.timeoutRetries += 1;
    }
    const delay = retryDelayMs(d.retries, this.config.webhookBackoffScale);
    if (delay === undefined) return this.giveUp(d);
    d.retries += 1;
    d.dueAt = performance.now() + delay;
    this.metrics.webhookRetries.inc();
    this.queue.push(d);
  }

  private giveUp(d: Delivery): void {
    this.metrics.webhookDeliveries.inc({ outcome: 'gave_up' });
    this.logger.warn('webhook abandoned', { transactionUuid: d.transactionUuid, retries: d.retries });
  }
}

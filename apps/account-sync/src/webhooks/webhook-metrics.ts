import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsRegistry } from '#observability';

/**
 * Results of a webhook request:
 *   stored, duplicate, stale   accepted (2xx); the ledger's answer
 *   refused_source             403: the sender is not in ips.json, also after a refresh it asked for
 *   unconfirmed_source         503: the sender is not in ips.json while a refresh runs or ips.json announces a
 *                              change (the venue retries; its new address may not be listed yet)
 *   invalid                    400/413: malformed (not JSON, no usable uuid) or oversized body
 *   unusable                   503: names a transaction (uuid) the ledger cannot hold (unknown state, no
 *                              amount…); the venue retries, nothing is lost by a 4xx
 *   store_failed               503: could not be stored (the venue retries)
 *   store_deadline             503: not stored within WEBHOOK_ANSWER_DEADLINE_MS (the store goes on; the venue
 *                              retries with backoff, where a timeout of its 10 s is retried only 3 times)
 *   unready                    503: no address list loaded yet (the venue retries)
 *   not_found, wrong_method    404/405
 */
export const WEBHOOK_RESULTS = [
  'stored',
  'duplicate',
  'stale',
  'refused_source',
  'unconfirmed_source',
  'invalid',
  'unusable',
  'store_failed',
  'store_deadline',
  'unready',
  'not_found',
  'wrong_method',
] as const;
export type WebhookResult = (typeof WEBHOOK_RESULTS)[number];

export class WebhookMetrics {
  readonly requests: Counter<'result'>;
  readonly storeSeconds: Histogram;
  readonly ipsVersion: Gauge;
  readonly ipsChangeNotice: Gauge;
  readonly ipsNoticeOdd: Counter;
  readonly ipsFetchFailures: Counter;
  readonly ipsLastGoodFetch: Gauge;
  readonly ipsBlocks: Gauge;

  constructor(registry: MetricsRegistry) {
    this.requests = new Counter({
      name: 'account_sync_webhooks_total',
      help: 'Webhook requests by result (stored, duplicate, stale, refused_source, unconfirmed_source, invalid, unusable, store_failed, store_deadline, unready, not_found, wrong_method)',
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of WEBHOOK_RESULTS) this.requests.inc({ result }, 0);
    this.storeSeconds = new Histogram({
      name: 'account_sync_webhook_stored_seconds',
      help: 'From a webhook request arriving to its durable answer (2xx sent only after the store)',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    });
    this.ipsVersion = new Gauge({
      name: 'account_sync_webhook_ips_version',
      help: 'Version of the loaded ips.json webhook source list (-1 until one is loaded)',
      registers: [registry],
    });
    this.ipsVersion.set(-1);
    this.ipsChangeNotice = new Gauge({
      name: 'account_sync_webhook_ips_change_notice',
      help: '1 while ips.json announces a change (change_notice not null); the notice itself is logged',
      registers: [registry],
    });
    this.ipsNoticeOdd = new Counter({
      name: 'account_sync_webhook_ips_notice_odd_total',
      help: 'ips.json change notices (each counted once) not of the shape guessed (a number for a date, a string for the object…); taken in all the same, what was odd is logged',
      registers: [registry],
    });
    this.ipsFetchFailures = new Counter({
      name: 'account_sync_webhook_ips_fetch_failures_total',
      help: 'ips.json fetches that failed or brought an unusable list (the last good list was kept)',
      registers: [registry],
    });
    this.ipsLastGoodFetch = new Gauge({
      name: 'account_sync_webhook_ips_last_good_fetch_timestamp_seconds',
      help: 'When ips.json was last fetched successfully',
      registers: [registry],
    });
    this.ipsBlocks = new Gauge({
      name: 'account_sync_webhook_ips_blocks',
      help: 'Address blocks in the loaded ips.json list',
      registers: [registry],
    });
  }
}

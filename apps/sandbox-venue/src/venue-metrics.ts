import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '#observability';

/** The sandbox's own metrics. Labels are bounded: route templates, statuses, fixed reasons. */
@Injectable()
export class VenueMetrics {
  readonly restRequests: Counter<'path' | 'status'>;
  readonly authFailures: Counter<'reason'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly webhookRetries: Counter;
  readonly badRequests: Counter<'reason'>;

  constructor(@Inject(MetricsRegistry) registry: MetricsRegistry) {
    const registers = [registry];
    this.restRequests = new Counter({
      name: 'sandbox_rest_requests_total',
      help: 'REST requests by route template and HTTP status',
      labelNames: ['path', 'status'],
      registers,
    });
    this.authFailures = new Counter({
      name: 'sandbox_rest_auth_failures_total',
      help: 'REST authentication failures by reason',
      labelNames: ['reason'],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'sandbox_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookRetries = new Counter({
      name: 'sandbox_webhook_retries_total',
      help: 'Webhook deliveries scheduled for a retry',
      registers,
    });
    this.badRequests = new Counter({
      name: 'sandbox_rest_bad_requests_total',
      help: 'Requests refused for bad input, by reason',
      labelNames: ['reason'],
      registers,
    });
  }
}

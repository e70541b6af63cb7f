/**
 * The webhook receiver part (phase `intake`): the ips.json list is loaded first (a failure leaves the
 * receiver answering 503 until a list loads, and /health down), then the receiver listens on WEBHOOK_PORT.
 * At stop the receiver stops taking requests first; those in hand are stored or answered 503.
 */
import { type DynamicModule, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { systemClock } from '#actors';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { VenueRestClient } from '#venue-api';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { AppLifecycle } from '../lifecycle/app-lifecycle.js';
import { TRANSACTION_INTAKE, type TransactionIntake } from '../transactions/transaction-intake.js';
import { CidrSet } from './cidr-set.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { WebhookSourceList } from './webhook-source-list.js';

@Injectable()
class WebhooksPart implements OnModuleInit {
  constructor(
    @Inject(ACCOUNT_SYNC_CONFIG) private readonly config: AccountSyncConfig,
    @Inject(TRANSACTION_INTAKE) private readonly intake: TransactionIntake,
    @Inject(VenueRestClient) private readonly client: VenueRestClient,
    @Inject(AppLifecycle) private readonly lifecycle: AppLifecycle,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(MetricsRegistry) private readonly registry: MetricsRegistry,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  onModuleInit(): void {
    const { config } = this;
    const metrics = new WebhookMetrics(this.registry);
    const sources = new WebhookSourceList(
      { refreshMs: config.WEBHOOK_IPS_REFRESH_MS },
      systemClock,
      metrics,
      this.logger.child('WebhookSources'),
      () => this.client.getWebhookSourceAddresses(),
    );
    const receiver = new WebhookReceiver(
      {
        port: config.WEBHOOK_PORT,
        host: config.WEBHOOK_HOST,
        path: config.WEBHOOK_PATH,
        maxBodyBytes: config.WEBHOOK_MAX_BODY_BYTES,
        trustedProxies: CidrSet.parse(splitList(config.WEBHOOK_TRUSTED_PROXIES)).set,
        answerDeadlineMs: config.WEBHOOK_ANSWER_DEADLINE_MS,
      },
      sources,
      this.intake,
      metrics,
      this.logger.child('WebhookReceiver'),
    );
    this.health.register('webhook-sources', () => sources.health());
    this.lifecycle.register('intake', {
      name: 'webhook-sources',
      start: () => sources.start(),
      stop: async () => sources.stop(),
    });
    this.lifecycle.register('intake', {
      name: 'webhook-receiver',
      start: async () => {
        await receiver.start();
      },
      stop: () => receiver.stop(),
    });
  }
}

export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

@Module({})
export class WebhooksModule {
  static forRoot(): DynamicModule {
    return { module: WebhooksModule, providers: [WebhooksPart] };
  }
}

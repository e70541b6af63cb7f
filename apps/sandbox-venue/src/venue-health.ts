import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '#observability';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';

/** The sandbox's /health checks: the venue itself has no external dependency; webhooks report their backlog. */
@Injectable()
export class VenueHealth implements OnModuleInit {
  constructor(
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(WebhookDispatcher) private readonly webhooks: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    this.health.register('webhooks', () => ({
      up: true,
      detail: `${this.webhooks.pendingDeliveries()} pending deliveries`,
    }));
  }
}

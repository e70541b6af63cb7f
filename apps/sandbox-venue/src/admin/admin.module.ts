import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RestModule } from '../rest/rest.module.js';
import { WebhookIpsController } from '../webhooks/webhook-ips.controller.js';
import { AdminIndexController } from './admin-index.controller.js';
import { BackOfficeAdminController } from './back-office-admin.controller.js';
import { FaultsAdminController } from './faults-admin.controller.js';
import { WebhooksAdminController } from './webhooks-admin.controller.js';

/** The operator API under `/admin/...` (back-office half) and the public webhook address list. */
@Module({
  imports: [RestModule, DiscoveryModule],
  controllers: [
    AdminIndexController,
    BackOfficeAdminController,
    FaultsAdminController,
    WebhooksAdminController,
    WebhookIpsController,
  ],
})
export class AdminModule {}

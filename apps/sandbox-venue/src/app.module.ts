import { type DynamicModule, Module } from '@nestjs/common';
import { ObservabilityModule } from '#observability';
import type { SandboxConfig } from './config.js';
import { AdminModule } from './admin/admin.module.js';
import { BackOfficeModule } from './domain/back-office.module.js';
import { RestModule } from './rest/rest.module.js';
import { TradingModule } from './trading/trading.module.js';
import { VenueHealth } from './venue-health.js';

@Module({})
export class SandboxAppModule {
  static forRoot(config: SandboxConfig): DynamicModule {
    return {
      module: SandboxAppModule,
      imports: [
        ObservabilityModule.forRoot({ app: 'sandbox-venue', defaultMetrics: config.processMetrics }),
        BackOfficeModule.forRoot(config),
        RestModule,
        AdminModule,
        TradingModule,
      ],
      providers: [VenueHealth],
    };
  }
}

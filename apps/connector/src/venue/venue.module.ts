import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { JsonLogger, MetricsRegistry } from '#observability';
import { AccountGroupLookup } from './account-groups/account-group-lookup.js';
import { OrderGateway } from './orders/order-gateway.js';
import { PriceStreamRegistry } from './prices/price-stream-registry.js';
import { VenueSession } from './session/venue-session.js';
import { VENUE_OPTIONS, type VenueOptions } from './venue-options.js';
import { VenueSide } from './venue-side.js';

/** Drains the venue session when the app shuts down (enable Nest shutdown hooks in main.ts). */
@Injectable()
class VenueShutdown implements OnApplicationShutdown {
  constructor(@Inject(VenueSide) private readonly side: VenueSide) {}

  async onApplicationShutdown(): Promise<void> {
    await this.side.close();
  }
}

const VENUE_PROVIDERS: Provider[] = [
  {
    provide: VenueSide,
    useFactory: (options: VenueOptions, registry: MetricsRegistry, logger: JsonLogger) =>
      new VenueSide(options, registry, logger),
    inject: [VENUE_OPTIONS, MetricsRegistry, JsonLogger],
  },
  { provide: VenueSession, useFactory: (side: VenueSide) => side.session, inject: [VenueSide] },
  { provide: PriceStreamRegistry, useFactory: (side: VenueSide) => side.prices, inject: [VenueSide] },
  { provide: OrderGateway, useFactory: (side: VenueSide) => side.orders, inject: [VenueSide] },
  { provide: AccountGroupLookup, useFactory: (side: VenueSide) => side.accountGroups, inject: [VenueSide] },
  VenueShutdown,
];

const VENUE_EXPORTS = [VenueSide, VenueSession, PriceStreamRegistry, OrderGateway, AccountGroupLookup];

/**
 * The venue side as singletons. Needs `MetricsRegistry` and `JsonLogger` (ObservabilityModule, global) and
 * `VENUE_OPTIONS`: either visible globally (plain `VenueModule`), or given with `forRoot`/`forRootAsync`.
 * The session does not connect by itself: call `VenueSession.start()` once the app is ready.
 */
@Module({ providers: VENUE_PROVIDERS, exports: VENUE_EXPORTS })
export class VenueModule {
  static forRoot(options: VenueOptions): DynamicModule {
    return {
      module: VenueModule,
      providers: [{ provide: VENUE_OPTIONS, useValue: options }, ...VENUE_PROVIDERS],
      exports: VENUE_EXPORTS,
    };
  }

  static forRootAsync(options: {
    imports?: DynamicModule['imports'];
    inject?: NonNullable<Extract<Provider, { useFactory: unknown }>['inject']>;
    useFactory: (...args: never[]) => VenueOptions | Promise<VenueOptions>;
  }): DynamicModule {
    return {
      module: VenueModule,
      imports: options.imports ?? [],
      providers: [
        { provide: VENUE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        ...VENUE_PROVIDERS,
      ],
      exports: VENUE_EXPORTS,
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { BusConnection, BusConsumers, BusKv, BusPublisher, BusResponder, BusStreams, serviceModules } from '#bus';
import { HealthRegistry, JsonLogger, lifecycleOf, MetricsRegistry, StartupProgress } from '#observability';
import { CONNECTOR_CONFIG, type ConnectorConfig, venueOptionsFrom } from './config.js';
import { ConnectorRuntime } from './nats/connector-runtime.js';
import { AccountGroupLookup, OrderGateway, PriceStreamRegistry, VenueModule, VenueSession } from './venue/index.js';

@Module({})
export class ConnectorAppModule {
  static forRoot(config: ConnectorConfig, startup?: StartupProgress): DynamicModule {
    return {
      module: ConnectorAppModule,
      imports: [
        ...serviceModules('connector', config, undefined, startup),
        VenueModule.forRoot(venueOptionsFrom(config)),
      ],
      providers: [
        { provide: CONNECTOR_CONFIG, useValue: config },
        {
          provide: ConnectorRuntime,
          useFactory: (
            connection: BusConnection,
            publisher: BusPublisher,
            responder: BusResponder,
            streams: BusStreams,
            consumers: BusConsumers,
            kv: BusKv,
            session: VenueSession,
            registry: PriceStreamRegistry,
            gateway: OrderGateway,
            accountGroups: AccountGroupLookup,
            metrics: MetricsRegistry,
            health: HealthRegistry,
            logger: JsonLogger,
            progress: StartupProgress,
          ) =>
            new ConnectorRuntime(
              {
                subjectPrefix: config.NATS_SUBJECT_PREFIX,
                account: config.ACCOUNT,
                statusIntervalMs: config.STATUS_INTERVAL_MS,
                orderCommandAckWaitMs: config.ORDER_COMMAND_ACK_WAIT_MS,
                outcomeDuplicateWindowMs: config.ORDER_OUTCOME_DUPLICATE_WINDOW_MS,
                orderRetentionMs: config.ORDER_RETENTION_MS,
                priceMaxAgeMs: config.PRICE_MAX_AGE_MS,
                replicas: config.NATS_REPLICAS,
                sessionHealthGraceMs: config.SESSION_HEALTH_GRACE_MS,
                shutdownOutcomeWaitMs: 5_000,
              },
              { connection, publisher, responder, streams, consumers, kv },
              { session, registry, gateway, accountGroups },
              { metrics, health, logger, startup: progress },
            ),
          inject: [
            BusConnection,
            BusPublisher,
            BusResponder,
            BusStreams,
            BusConsumers,
            BusKv,
            VenueSession,
            PriceStreamRegistry,
            OrderGateway,
            AccountGroupLookup,
            MetricsRegistry,
            HealthRegistry,
            JsonLogger,
            StartupProgress,
          ],
        },
        // Starts the NATS side once every provider exists, and stops it first at shutdown (this module is the
        // root, so its destroy hook runs before the venue and bus modules' shutdown hooks): stop taking commands
        // → stop the session → store outcomes in hand → flush NATS. Then the venue side closes and the bus drains.
        lifecycleOf(ConnectorRuntime),
      ],
    };
  }
}

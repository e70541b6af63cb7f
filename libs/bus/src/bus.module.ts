import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type ModuleMetadata,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HealthRegistry, JsonLogger, MetricsRegistry, StartupProgress } from '#observability';
import { BUS_OPTIONS, type BusOptions } from './bus-options.js';
import { BusMetrics } from './bus-metrics.js';
import { BusConnection } from './bus-connection.js';
import { BusPublisher } from './bus-publisher.js';
import { BusResponder } from './bus-responder.js';
import { BusStreams } from './bus-streams.js';
import { BusConsumers } from './bus-consumers.js';
import { BusKv } from './bus-kv.js';
import { JetStreamMetrics } from './jetstream-metrics.js';

export interface BusModuleAsyncOptions {
  imports?: ModuleMetadata['imports'];
  inject?: (string | symbol | (abstract new (...args: never[]) => unknown))[];
  useFactory: (...args: never[]) => BusOptions | Promise<BusOptions>;
}

/** Closes the connection last, after every other shutdown hook has stopped using it. */
@Injectable()
class BusShutdown implements OnApplicationShutdown {
  constructor(@Inject(BusConnection) private readonly connection: BusConnection) {}
  async onApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}

/**
 * One NATS connection and the small typed services built on it. Requires ObservabilityModule (metrics,
 * health, logger). The app injects BusPublisher, BusResponder, BusStreams, BusConsumers, BusKv and
 * BusConnection (for health, flush and close) — never the raw client. What the app declares through them is
 * declared again when NATS may have lost it (`BusConnection.topology`) and exported as `jetstream_*`
 * (`JetStreamMetrics`), with nothing more to wire.
 */
@Global()
@Module({})
export class BusModule {
  static forRootAsync(options: BusModuleAsyncOptions): DynamicModule {
    return {
      module: BusModule,
      imports: options.imports ?? [],
      providers: [
        { provide: BUS_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: BusMetrics,
          useFactory: (registry: MetricsRegistry) => new BusMetrics(registry),
          inject: [MetricsRegistry],
        },
        {
          provide: BusConnection,
          useFactory: (
            busOptions: BusOptions,
            metrics: BusMetrics,
            health: HealthRegistry,
            logger: JsonLogger,
            startup: StartupProgress,
          ) => BusConnection.open(busOptions, metrics, health, logger, startup),
          inject: [BUS_OPTIONS, BusMetrics, HealthRegistry, JsonLogger, StartupProgress],
        },
        {
          provide: BusPublisher,
          useFactory: (c: BusConnection, m: BusMetrics, l: JsonLogger) => new BusPublisher(c, m, l.child('bus')),
          inject: [BusConnection, BusMetrics, JsonLogger],
        },
        {
          provide: BusResponder,
          useFactory: (c: BusConnection, m: BusMetrics, l: JsonLogger) => new BusResponder(c, m, l.child('bus')),
          inject: [BusConnection, BusMetrics, JsonLogger],
        },
        {
          provide: BusStreams,
          useFactory: (c: BusConnection, l: JsonLogger) => new BusStreams(c, l.child('bus')),
          inject: [BusConnection, JsonLogger],
        },
        {
          provide: BusConsumers,
          useFactory: (c: BusConnection, l: JsonLogger) => new BusConsumers(c, l.child('bus')),
          inject: [BusConnection, JsonLogger],
        },
        { provide: BusKv, useFactory: (c: BusConnection) => new BusKv(c), inject: [BusConnection] },
        {
          provide: JetStreamMetrics,
          useFactory: (registry: MetricsRegistry, c: BusConnection) => new JetStreamMetrics(registry, c),
          inject: [MetricsRegistry, BusConnection],
        },
        BusShutdown,
      ],
      exports: [
        BusConnection,
        BusPublisher,
        BusResponder,
        BusStreams,
        BusConsumers,
        BusKv,
        BusMetrics,
        JetStreamMetrics,
      ],
    };
  }
}

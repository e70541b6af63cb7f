import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { unlessShutdown, type HealthRegistry, type JsonLogger, type StartupProgress } from '#observability';
import type { BusOptions } from './bus-options.js';
import type { BusMetrics } from './bus-metrics.js';
import { DeclaredTopology, type DeclaredTopologyOptions, type StoreLoss } from './declared-topology.js';
import { RoundTripWatch, type RoundTripWatchOptions } from './round-trip-watch.js';
import { logWhileWaiting } from './wait-log.js';

/**
 * The one NATS connection of a process. It reconnects forever (a gateway that gave up on its bus would be
 * a silent outage), reports its state as a health check and metrics, and drains on shutdown so published
 * messages and in-flight replies are flushed before the socket closes.
 *
 * The raw client is reachable only through `client` for the other services of this library; apps use
 * those services, never the client.
 */
export class BusConnection {
  private up = true;
  private closing: Promise<void> | undefined;
  private readonly reconnectListeners: (() => void)[] = [];
  /**
   * What this process declared on JetStream (streams, buckets, consumers), declared again after every
   * reconnection and when a publish finds no stream: a restarted server may have lost it.
   */
  readonly topology: DeclaredTopology;

  private constructor(
    readonly client: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly metrics: BusMetrics,
    private readonly logger: JsonLogger,
    topologyOptions: DeclaredTopologyOptions = {},
    roundTrips?: RoundTripWatchOptions,
  ) {
    this.topology = new DeclaredTopology(metrics, logger, () => this.isUp, topologyOptions);
    this.roundTrips = new RoundTripWatch(
      {
        connected: () => this.socketUp,
        roundTrip: () => this.client.rtt(),
        reconnect: () => this.client.reconnect(),
        now: Date.now,
        onStale: (silentMs) => {
          metrics.staleReconnects.inc();
          logger.error('NATS connected but silent: no round trip answered; reconnecting', { silentMs });
        },
        onUnanswered: (unanswered) => {
          this.answering = !unanswered;
          if (!this.up) return;
          metrics.connected.set(unanswered ? 0 : 1);
          if (unanswered) logger.warn('NATS connected but not answering round trips (a hung or overloaded server)');
          else logger.info('NATS answers round trips again');
        },
      },
      roundTrips,
    );
    this.roundTrips.start();
    metrics.connected.set(1);
    void this.watchStatus();
  }

  /** The server answers round trips, not only "connected" (a client that stopped reading is reconnected). */
  private readonly roundTrips: RoundTripWatch;
  /** False while round trips go unanswered (`unansweredMs`): a hung server. */
  private answering = true;

  static async open(
    options: BusOptions,
    metrics: BusMetrics,
    health: HealthRegistry,
    logger: JsonLogger,
    startup?: StartupProgress,
  ): Promise<BusConnection> {
    // Said at once and again while it lasts: an app waiting for an unreachable NATS must not look hung — and a
    // long outage is not a line every 2 s (the intervals double up to a minute).
    const servers = [options.servers].flat().map(withoutCredentials);
    logger.info('connecting to NATS', { servers });
    const stopWaitLog = logWhileWaiting(
      (waitedMs) => logger.warn('waiting for NATS: not reachable yet, retrying', { servers, waitedMs }),
      options.waitLogIntervalMs ?? 2_000,
    );
    const connecting = connect({
      servers: options.servers,
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? 500,
      // The client otherwise builds two error objects with a captured stack for every request and JetStream
      // publish, in case it times out: 23 % of account-sync's CPU in the trade-history sync (bench profile).
      // Our errors are reported by operation, never by the client's stack.
      noAsyncTraces: true,
      ...(options.reconnectBufSize !== undefined ? { reconnectBufSize: options.reconnectBufSize } : {}),
    });
    // A SIGTERM while NATS is unreachable stops the wait (it has no bound): the app exits 0, holding nothing.
    const client = await unlessShutdown(connecting, 'NATS', (late) => void late.close()).finally(stopWaitLog);
    // an attempt given up before the app exists (a later provider failed) closes this connection, not leaves it
    startup?.onAbandon(() => (client.isClosed() ? undefined : client.close()));
    startup?.enter('connected to NATS; opening JetStream');
    const jsm = await jetstreamManager(client);
    const connection = new BusConnection(
      client,
      jetstream(client),
      jsm,
      metrics,
      logger.child('bus'),
      options.topology ?? {},
      options.roundTrips,
    );
    health.register('nats', () => connection.health());
    startup?.enter('connected to NATS; starting');
    logger.info('connected to NATS', { server: client.getServer() });
    return connection;
  }

  /** True while the socket is up and the connection is neither draining nor closed. */
  /**
   * Connected and answering: a server that stopped answering round trips (hung) counts as down, so core
   * publishes (prices) are dropped and counted rather than queued in the client and delivered, old, as live
   * once it answers again (outside tester: prices 25 s old arrived live after a 25 s hang).
   */
  get isUp(): boolean {
    return this.socketUp && this.answering;
  }

  /** The client's own view: connected, not closing (whether the server still answers aside). */
  private get socketUp(): boolean {
    return this.up && !this.client.isClosed() && !this.client.isDraining();
  }

  get isClosed(): boolean {
    return this.client.isClosed();
  }

  /**
   * Called after every reconnection (what the process declared is declared again by `topology` meanwhile;
   * a listener re-reads what it needs).
   */
  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  /** Waits until everything published so far has reached the server (no-op when not connected). */
  async flush(): Promise<void> {
    if (!this.isUp) return;
    await this.client.flush();
  }

  /**
   * Drains subscriptions, flushes pending publishes and closes; idempotent. Disconnected, it closes at once: a
   * drain flushes through the server, so it would wait for a reconnect that may never come (a stop during an
   * outage, a start-up attempt NATS cut off).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.topology.stop();
      this.roundTrips.stop();
      if (this.client.isClosed()) return;
      if (!this.up) {
        await this.client.close();
        this.metrics.connected.set(0);
        return;
      }
      try {
        await this.client.drain();
      } catch (error) {
        this.logger.warn('NATS drain failed; closing', { error });
        await this.client.close();
      }
      this.metrics.connected.set(0);
    })();
    return this.closing;
  }

  private health(): { up: boolean; detail?: string } {
    if (this.client.isClosed()) return { up: false, detail: 'closed' };
    if (!this.up) return { up: false, detail: 'disconnected, reconnecting' };
    const silent = this.roundTrips.unansweredFor();
    if (silent !== undefined) {
      return { up: false, detail: `connected, but no round trip answered for ${Math.round(silent / 1000)} s` };
    }
    // Told, not "down": the process works (what it could restore, it did); a 503 would have it restarted or
    // taken out of service for what the server lost. Told for an hour after the last loss, so it never flaps.
    const lost = this.topology.storeLoss;
    if (lost !== undefined) return { up: true, detail: storeLossDetail(lost) };
    return { up: true };
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.client.status()) {
      switch (status.type) {
        case 'disconnect':
          this.up = false;
          this.metrics.connected.set(0);
          this.metrics.disconnects.inc();
          this.logger.warn('NATS disconnected', { server: status.server });
          break;
        case 'reconnect':
          this.up = true;
          this.metrics.connected.set(1);
          this.metrics.reconnects.inc();
          this.logger.info('NATS reconnected', { server: status.server });
          this.roundTrips.reset();
          this.topology.redeclare('reconnect');
          for (const listener of this.reconnectListeners) listener();
          break;
        case 'error':
          this.logger.warn('NATS error', { error: status.error.message });
          break;
        case 'close':
          this.up = false;
          this.metrics.connected.set(0);
          return;
        default:
          break;
      }
    }
  }
}

/** A server URL fit for a log line: `nats://user:pass@host:4222` → `nats://host:4222`. */
export function withoutCredentials(server: string): string {
  return server.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1');
}

/** How many lost streams the health detail names (the log and `bus_streams_lost_total` name them all). */
const TOLD_STREAMS = 5;

function storeLossDetail(lost: StoreLoss): string {
  const named = lost.streams.slice(0, TOLD_STREAMS).join(', ');
  const more = lost.streams.length > TOLD_STREAMS ? ` and ${lost.streams.length - TOLD_STREAMS} more` : '';
  return (
    `connected; store lost: ${named}${more} declared afresh (what they held is gone), the last at ` +
    `${new Date(lost.at).toISOString()} (GatewayNatsStoreLost)`
  );
}

import type { DeclaredTopologyOptions } from './declared-topology.js';
import type { RoundTripWatchOptions } from './round-trip-watch.js';

/** Injection token for the bus's connection options. */
export const BUS_OPTIONS = Symbol('BUS_OPTIONS');

export interface BusOptions {
  /** One or more `nats://host:port` URLs. */
  servers: string | string[];
  /** Connection name shown by the server (`nats server report connections`). */
  name: string;
  /** Wait between reconnect attempts (ms); the client retries forever. */
  reconnectTimeWaitMs?: number;
  /** Bound on bytes the client buffers while disconnected; beyond it publishes are dropped and counted. */
  reconnectBufSize?: number;
  /** While the first connection is not made, a warning is logged after this (default 2 s), then at doubling intervals up to a minute. */
  waitLogIntervalMs?: number;
  /** Backoff and pacing of declaring the topology again after a reconnect or a "no stream" answer. */
  topology?: DeclaredTopologyOptions;
  /** How often a round trip is timed, and the silence after which a connected client is reconnected (5 s, 20 s). */
  roundTrips?: RoundTripWatchOptions;
}

export { BUS_OPTIONS, type BusOptions } from './bus-options.js';
export { BusMetrics } from './bus-metrics.js';
export { BusConnection } from './bus-connection.js';
export { isBusUnavailable } from './bus-unavailable.js';
export { BusPublisher, DurablePublishError, isWrongLastSequence, type DurablePublishOptions } from './bus-publisher.js';
export {
  BusResponder,
  MAX_REQUEST_BYTES,
  type BusSubscription,
  type ContractResponderOptions,
  type ParsingResponderOptions,
  type RawResponderOptions,
} from './bus-responder.js';
export { DurableFollower, type DurableFollowerOptions } from './durable-follower.js';
export { BusStreams, readStreamJson, type StoredJson, type StreamDefinition } from './bus-streams.js';
export {
  BusConsumers,
  type DurableConsumerHandle,
  type DurableConsumerOptions,
  type DurableMessage,
} from './bus-consumers.js';
export { BusKv, KvBucket, type KvBucketOptions, type KvChange, type KvEntry, type KvWatch } from './bus-kv.js';
export { BusModule, type BusModuleAsyncOptions } from './bus.module.js';
export { withNatsEnv } from './nats-env.js';
export { serviceModules, type ServiceModulesConfig } from './service-modules.js';
export type { SubjectKind } from './subject-kind.js';
export { JetStreamMetrics, type WatchedStream } from './jetstream-metrics.js';
export {
  DeclaredTopology,
  isNoStreamAnswer,
  REDECLARE_TRIGGERS,
  type Declaration,
  type DeclaredTopologyOptions,
  type RedeclareTrigger,
  type StoreLoss,
  type StreamIdentity,
} from './declared-topology.js';
export {
  BucketName,
  connectorStreams,
  ensureConnectorStreams,
  ORDER_COMMANDS_DURABLE,
  type ConnectorStreamSettings,
} from './topology.js';
export { BusCore, BusRequestError, type CoreMessage, type CoreSubscribeOptions } from './bus-core.js';
export {
  ensureExecutionTopology,
  executionStreams,
  type ExecutionBuckets,
  type ExecutionTopologySettings,
} from './execution-topology.js';
export {
  AccountLedgerName,
  accountLedgerStreams,
  LedgerUnavailableError,
  SubjectLedger,
  type AccountLedgerSettings,
  type LedgerAppend,
  type LedgerEntry,
} from './account-ledgers.js';
export {
  AccountStateName,
  accountStateStreams,
  HISTORY_RESOURCES,
  type AccountStateSettings,
} from './account-state.js';

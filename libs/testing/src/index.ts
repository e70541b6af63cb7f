export { freePort } from './free-port.js';
export { restartNatsServer, startNatsServer, type NatsServerHandle, type StartNatsOptions } from './nats-server.js';
export { FakeClock } from './fake-clock.js';
export { eventually, waitFor, type EventuallyOptions } from './eventually.js';
export { CLUSTER_WAIT_MS, startNatsCluster, type NatsClusterHandle, type ClusterNode } from './nats-cluster.js';
export {
  startStack,
  type RestartNatsOptions,
  type Stack,
  type StackContext,
  type StackDefinition,
  type Stoppable,
} from './stack.js';
export { acquireMachineLock, type MachineLock } from './machine-lock.js';
export { configProblems } from './config-problems.js';
export { startTcpRelay, type TcpRelay } from './tcp-relay.js';
export { parseInTimeZone } from './time-zone.js';

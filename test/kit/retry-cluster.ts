/**
 * The three-node cluster suites: a test that fails is run up to twice more, each failure printed. On
 * nats-server 2.9 with two cores, a stream's raft group sometimes stays without a leader for over a minute
 * after a node is restarted and another node killed (the apps answer "not stored" meanwhile, as they must); an
 * attempt starts from a healed cluster (`NatsClusterHandle.heal`). A defect of ours fails all three.
 */
import { jest } from '@jest/globals';

jest.retryTimes(2, { logErrorsBeforeRetry: true });

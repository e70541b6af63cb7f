/**
 * End-to-end suites run real processes, sockets and a nats-server on a 2-core machine: a test that fails is run
 * once more, with its first failure printed (`logErrorsBeforeRetry`), so a rare timing flake shows in the log
 * without failing CI — and a real defect, which fails twice, still does.
 */
import { jest } from '@jest/globals';

jest.retryTimes(1, { logErrorsBeforeRetry: true });

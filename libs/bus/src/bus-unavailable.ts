import {
  ClosedConnectionError,
  ConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';

/**
 * Whether `error` (or one of its causes) says NATS could not be reached or dropped the connection in the middle —
 * a request left unanswered, a connection closed, JetStream not answering — rather than refusing what was asked.
 * An app whose start-up fails so exits 75 (EX_TEMPFAIL: start me again), not 1.
 */
export function isBusUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth += 1) {
    if (
      cause instanceof RequestError ||
      cause instanceof TimeoutError ||
      cause instanceof ConnectionError ||
      cause instanceof ClosedConnectionError ||
      cause instanceof NoRespondersError
    )
      return true;
  }
  return false;
}

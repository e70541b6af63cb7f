/**
 * Every failure the SDK and the CLI report: a code (a gateway code such as `NOT_CONNECTED`, a venue code such
 * as `RFS100011` passed through unchanged, or one of the SDK's own below), a message, and the next step a
 * person can take.
 */
export const ClientErrorCode = {
  /** No NATS server answers at the given URL(s). */
  NatsUnreachable: 'NATS_UNREACHABLE',
  /** Nobody answers the gateway subject: the connector of this account is not running. */
  NoResponder: 'NO_RESPONDER',
  /** A JetStream stream the call needs does not exist (yet). */
  StreamMissing: 'STREAM_MISSING',
  /** An argument the SDK refuses before sending anything. */
  BadArgument: 'BAD_ARGUMENT',
} as const;

export class GatewayError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** What to do about it, for a person (the CLI prints it). */
    readonly nextStep?: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

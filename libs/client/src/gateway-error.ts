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
  /** No answer in time: the gateway may be busy or restarting. */
  Timeout: 'TIMEOUT',
  /** A write (order, withdrawal) sent but not answered: it may or may not have been carried out. */
  OutcomeUnknown: 'OUTCOME_UNKNOWN',
} as const;

export class GatewayError extends Error {
  /** The values that caused a refusal, as the reply gave them (e.g. `unresolvedOrders`, `limit`). */
  readonly values?: Readonly<Record<string, string>>;
  /** Each bad field of a refused request, as the reply named them. */
  readonly fields?: ReadonlyArray<{ field: string; problem: string }>;

  constructor(
    readonly code: string,
    message: string,
    /** What to do about it, for a person (the CLI prints it). */
    readonly nextStep?: string,
    details: { values?: unknown; fields?: unknown } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    const values = stringRecordOf(details.values);
    if (values !== undefined) this.values = values;
    const fields = fieldProblemsOf(details.fields);
    if (fields !== undefined) this.fields = fields;
  }
}

/** A reply's `values` if it is an object of strings (a reply is outside input: nothing else is kept). */
function stringRecordOf(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** A reply's `fields` entries that name a field and its problem. */
function fieldProblemsOf(value: unknown): Array<{ field: string; problem: string }> | undefined {
  if (!Array.isArray(value)) return undefined;
  const problems = value.flatMap((f: unknown) => {
    if (f === null || typeof f !== 'object') return [];
    const { field, problem } = f as { field?: unknown; problem?: unknown };
    return typeof field === 'string' && typeof problem === 'string' ? [{ field, problem }] : [];
  });
  return problems.length === 0 ? undefined : problems;
}

/**
 * A write — an order placed, a withdrawal submitted — sent but never answered (timed out, connection lost):
 * the gateway may have carried it out or not. Ask again with the same `idempotencyKey` (the same key answers
 * the same order or withdrawal, never a second one) or look it up by that key; a new key may do it twice.
 * `cause` is the transport failure (`TIMEOUT`, …).
 */
export class OutcomeUnknownError extends GatewayError {
  constructor(
    /** What was asked, for a person: `order`, `withdrawal`. */
    readonly what: string,
    /** The key the request carried (the caller's, or the one the SDK generated). */
    readonly idempotencyKey: string,
    cause: GatewayError,
  ) {
    super(
      ClientErrorCode.OutcomeUnknown,
      `${cause.message}: the ${what} may or may not have been taken (idempotency key "${idempotencyKey}")`,
      `ask again with the same idempotency key "${idempotencyKey}" — never a new one: the same key answers the same ${what} — or look the ${what} up by that key`,
    );
    this.name = 'OutcomeUnknownError';
    this.cause = cause;
  }
}

/**
 * What every module of the SDK shares: one NATS connection, the subjects of one account, the requester id
 * leases are held under, and the request/reply helper that turns the gateway's `{ok:false,error}` answers and
 * transport failures into a `GatewayError`. A module (prices, status, inspect; orders and account later) is
 * a class taking this context.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { ErrorReply, Subjects } from '#contracts';
import { ClientErrorCode, GatewayError, OutcomeUnknownError } from './gateway-error.js';

export interface ClientContext {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly subjects: Subjects;
  /** Holder of this client's leases (one per client unless given). */
  readonly requester: string;
  /** Clock of lease renewal and quote expiry (tests may pass their own). */
  readonly now: () => number;
  readonly requestTimeoutMs: number;
  /** Bound on a request that waits for the venue (withdrawal submit and cancel). */
  readonly venueWriteTimeoutMs: number;
}

/** A write named by an idempotency key: what it is (`order`, `withdrawal`) and the key it carries. */
export interface IdempotentWrite {
  what: string;
  idempotencyKey: string;
}

/**
 * A gateway request/reply: `{ok:true,…}` is returned, `{ok:false,error}` and no answer throw a `GatewayError`.
 * A `write` sent but not answered throws an `OutcomeUnknownError` carrying its idempotency key (nobody
 * listening stays NO_RESPONDER: nothing was received).
 */
export async function gatewayRequest<T extends { ok: true }>(
  context: ClientContext,
  subject: string,
  body: unknown,
  write?: IdempotentWrite,
  timeoutMs = context.requestTimeoutMs,
): Promise<T> {
  let reply: T | ErrorReply;
  try {
    const message = await context.nc.request(subject, body === undefined ? '' : JSON.stringify(body), {
      timeout: timeoutMs,
    });
    reply = message.json<T | ErrorReply>();
  } catch (error) {
    const failure = transportError(error, subject, context.subjects.account);
    if (write === undefined || failure.code === ClientErrorCode.NoResponder) throw failure;
    throw new OutcomeUnknownError(write.what, write.idempotencyKey, failure);
  }
  if (reply.ok) return reply;
  throw new GatewayError(
    reply.error.code,
    replyErrorMessage(reply.error),
    nextStepFor(reply.error.code),
    reply.error as { values?: unknown; fields?: unknown },
  );
}

/** An error reply's message, with the reason of each bad field when the reply names them (`error.fields`). */
export function replyErrorMessage(error: { code: string; message: string; fields?: unknown }): string {
  const reasons = Array.isArray(error.fields)
    ? error.fields.flatMap((f: unknown) =>
        typeof f === 'object' && f !== null && typeof (f as { problem?: unknown }).problem === 'string'
          ? [(f as { problem: string }).problem]
          : [],
      )
    : [];
  return reasons.length === 0 ? error.message : `${error.message} — ${reasons.join('; ')}`;
}

/** The connector (or another app) is not there to answer: say so, and how to start it. */
export function transportError(error: unknown, subject: string, account: string): GatewayError {
  const text = error instanceof Error ? error.message : String(error);
  if (/no responders|503/i.test(text)) {
    return new GatewayError(
      ClientErrorCode.NoResponder,
      `nobody answers ${subject}: no ${appOf(subject)} serves account "${account}" on this NATS`,
      'start the stack (`npm start`), or check --account / ACCOUNT and --prefix / NATS_SUBJECT_PREFIX',
    );
  }
  if (/timeout/i.test(text)) {
    return new GatewayError(
      ClientErrorCode.Timeout,
      `no answer on ${subject} in time`,
      `the ${appOf(subject)} may be busy or restarting; try again, then look at \`gw status\``,
    );
  }
  return new GatewayError('INTERNAL', `request on ${subject} failed: ${text}`);
}

/** Which app answers a subject (for the message when none does). */
function appOf(subject: string): string {
  if (subject.includes('.exec.')) return 'execution app';
  if (subject.includes('.acct.')) return 'account-sync app';
  return 'connector';
}

function nextStepFor(code: string): string | undefined {
  switch (code) {
    case 'NOT_CONNECTED':
      return 'the connector has no open venue session yet; `gw status` shows its session state';
    case 'INVALID_REQUEST':
      return 'fix the request as the message says (docs/nats-contract.md)';
    case 'BUSY':
      return 'the connector is asking the venue for many streams at once: ask again in a few seconds';
    case 'STREAM_LIMIT':
      return 'the connector holds its maximum of streams (VENUE_MAX_STREAMS): release the ones no strategy needs';
    case 'TRADING_HALTED':
      return 'trading is halted: `gw trading` shows who halted it and why; `gw resume --reason <why>` resumes';
    case 'QUOTE_UNAVAILABLE':
      return 'no unused live quote for that stream now (it passes): ask again with the same key; `gw prices …` shows the stream';
    case 'QUOTE_REFUSED':
      return 'the venue refused that price stream for the request itself (error.values.venueCode): change the instrument, size, tenor or account group — asking again gets the same answer, save RFS100011 while the venue has halted the instrument (ask again once it resumes)';
    case 'QUOTE_STALE':
    case 'QUOTE_NOT_LIVE':
      return "the quote's stream is not live now: take a fresh quote (`gw prices …`; `gw status` shows the connector)";
    case 'ORDER_NOT_FOUND':
      return 'no order with that id or key here: `gw orders` lists the open ones';
    case 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD':
      return 'the key names an earlier order with other fields: re-send exactly that order, or use a new key for a new one';
    case 'PRICE_WORSE_THAN_LIMIT':
      return 'the quote is worse than your worst price: wait for a better quote or widen the limit';
    case 'ACCOUNT_SYNC_STOPPING':
      return 'account-sync was stopping (a restart): nothing was stored or sent — ask again with the same key';
    case 'WITHDRAWALS_RESTORING':
      return "account-sync is restoring its withdrawal records from the venue's lists (NATS lost them): nothing was stored or sent — ask again with the same key";
    case 'ORDER_BEING_PLACED':
      return 'ask again with the same key after the time the message names: the order is placed at most once';
    default:
      return /^[A-Z]{3}\d{6}$/.test(code) ? 'a venue code: see the venue interface, section 7' : undefined;
  }
}

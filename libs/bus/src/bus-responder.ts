import type { Msg, Subscription } from '@nats-io/transport-node';
import {
  contractOf,
  errorReply,
  GatewayErrorCode,
  MAX_REQUEST_BYTES,
  parseContract,
  readJsonObject,
  type Parsed,
} from '#contracts';
import type { JsonLogger } from '#observability';
import type { BusConnection } from './bus-connection.js';
import type { BusMetrics } from './bus-metrics.js';
import type { SubjectKind } from './subject-kind.js';

/** A responder's own handle: apps stop answering with it and never hold the NATS client's types. */
export interface BusSubscription {
  /** Stops taking requests; those the server already routed here are still read and answered (`stop`, not awaited). */
  unsubscribe(): void;
  /**
   * Stops taking requests: the server is told, and every request it routed here before it knew is still read and
   * handed to its handler (answered), never dropped. Resolves once none can come any more.
   */
  stop(): Promise<void>;
}

/**
 * How long a stop waits for the server's word that no request is on its way (one round trip); past it (NATS down:
 * nothing is on its way), the subscription is dropped.
 */
const STOP_ROUND_TRIP_WAIT_MS = 2_000;

export interface ContractResponderOptions<T extends object, R> {
  subject: string;
  kind: SubjectKind;
  /** The request's contract class; the payload is decoded and validated with `parseContract`. */
  contract: new () => T;
  handle: (request: T) => R | Promise<R>;
  /** Queue group, so several instances share the requests. */
  queue?: string;
  /**
   * Whether an empty payload is read as `{}`. Unset: exactly when `{}` is a valid request of the contract (no
   * required field: a query whose filters are all optional, outside tester t3 F8); `false`: it is "not JSON".
   */
  acceptEmptyBody?: boolean;
  /** See `ParsingResponderOptions.isBadRequest`. */
  isBadRequest?: (reply: R) => boolean;
}

export interface ParsingResponderOptions<T, R> {
  subject: string;
  kind: SubjectKind;
  /**
   * Reads the request (never throws), a JSON object already read within the bounds every request subject has
   * (`readJsonObject`: size, nesting, field count; objects of no prototype); a refusal is answered and counted like
   * a contract's.
   */
  parse: (request: Record<string, unknown>) => Parsed<T>;
  handle: (request: T) => R | Promise<R>;
  queue?: string;
  /** Whether an empty payload is read as `{}` (unset: no, it is "not JSON"). */
  acceptEmptyBody?: boolean;
  /**
   * A handler's answer that refuses the request as invalid after reading it (a rule the contract cannot judge
   * alone: an account group the account does not have): counted in `bus_bad_requests_total` like a contract's.
   */
  isBadRequest?: (reply: R) => boolean;
}

export interface RawResponderOptions<R> {
  subject: string;
  kind: SubjectKind;
  /**
   * For requests whose body is ignored (e.g. a lookup): empty, or any JSON object within the bounds of every
   * request subject (a body past them is refused as anywhere else, tester t2 F6).
   */
  handle: () => R | Promise<R>;
  queue?: string;
}

/** The longest silence between two log lines about requests without a reply subject (each is counted). */
const NO_REPLY_LOG_EVERY_MS = 60_000;

/** The largest request read (libs/contracts `json-payload.ts`): a bigger one is refused unread. */
export { MAX_REQUEST_BYTES };

/**
 * Request/reply responders that never crash on bad input: every request is read the one bounded way
 * (`readJsonObject`: size, nesting, field count, with the same words on every subject); an invalid request gets an
 * `INVALID_REQUEST` error reply listing its problems (counted in `bus_bad_requests_total`), a handler that throws
 * gets an `INTERNAL` error reply (counted, logged without the payload). A request published without a reply
 * subject is not handled: counted in `bus_requests_without_reply_total`, logged at most once a minute.
 */
export class BusResponder {
  private readonly encoder = new TextEncoder();
  /** When a request without a reply subject was last logged, and how many came since, unlogged. */
  private noReplyLoggedAt: number | undefined;
  private noReplyUnlogged = 0;

  constructor(
    private readonly connection: BusConnection,
    private readonly metrics: BusMetrics,
    private readonly logger: JsonLogger,
  ) {}

  respond<T extends object, R>(options: ContractResponderOptions<T, R>): BusSubscription {
    const { contract, acceptEmptyBody, ...rest } = options;
    // judged once, here: a contract that takes `{}` takes an empty body as the same request
    const emptyIsObject = acceptEmptyBody ?? parseContract(contract, '{}').ok;
    return this.respondParsed({
      ...rest,
      acceptEmptyBody: emptyIsObject,
      parse: (request) => contractOf(contract, request),
    });
  }

  /** For a request read by hand rather than by a contract class: its refusals are counted the same way. */
  respondParsed<T, R>(options: ParsingResponderOptions<T, R>): BusSubscription {
    const { kind, parse, acceptEmptyBody = false } = options;
    this.countFromZero(kind);
    return this.subscribe(options.subject, kind, options.queue, (msg) => {
      const read = acceptEmptyBody && msg.data.length === 0 ? emptyRequest() : readJsonObject(msg.data);
      const parsed: Parsed<T> = read.ok ? parse(read.value) : { ok: false, problems: [read.problem] };
      if (!parsed.ok) {
        this.metrics.badRequests.inc({ subject_kind: kind });
        this.logger.warn('invalid request refused', { kind, problems: parsed.problems });
        this.reply(msg, errorReply(GatewayErrorCode.InvalidRequest, parsed.problems.join('; ')));
        return;
      }
      void this.run(msg, kind, () => options.handle(parsed.value), options.isBadRequest);
    });
  }

  respondToAny<R>(options: RawResponderOptions<R>): BusSubscription {
    const { handle, ...rest } = options;
    return this.respondParsed({ ...rest, acceptEmptyBody: true, parse: () => IGNORED, handle: () => handle() });
  }

  /**
   * A request on `kind`'s subject that came without a reply subject (nobody can be answered: it is not handled):
   * counted, and logged at most once a minute with how many came since. Called by the responders here, and by an
   * app reading a request subject by hand (execution's `exec.order.place`).
   */
  requestWithoutReply(kind: SubjectKind): void {
    this.metrics.requestsWithoutReply.inc({ subject_kind: kind });
    const now = Date.now();
    if (this.noReplyLoggedAt !== undefined && now - this.noReplyLoggedAt < NO_REPLY_LOG_EVERY_MS) {
      this.noReplyUnlogged += 1;
      return;
    }
    this.logger.warn('request without a reply subject dropped unanswered (said at most once a minute)', {
      kind,
      droppedUnloggedBefore: this.noReplyUnlogged,
    });
    this.noReplyLoggedAt = now;
    this.noReplyUnlogged = 0;
  }

  /** A kind answered has its failure series at 0 at once: a dashboard shows "none failed" as 0, not "no data". */
  private countFromZero(kind: SubjectKind): void {
    this.metrics.handlerErrors.inc({ subject_kind: kind }, 0);
    this.metrics.requestsWithoutReply.inc({ subject_kind: kind }, 0);
  }

  private subscribe(
    subject: string,
    kind: SubjectKind,
    queue: string | undefined,
    onMessage: (msg: Msg) => void,
  ): BusSubscription {
    return stoppable(this.natsSubscribe(subject, kind, queue, onMessage));
  }

  private natsSubscribe(
    subject: string,
    kind: SubjectKind,
    queue: string | undefined,
    onMessage: (msg: Msg) => void,
  ): Subscription {
    return this.connection.client.subscribe(subject, {
      ...(queue !== undefined ? { queue } : {}),
      callback: (error, msg) => {
        if (error) {
          this.logger.warn('subscription error', { subject, error: error.message });
          return;
        }
        if (!msg.reply) {
          // a publish without a reply subject: nobody to answer, so not handled (an order placed unseen) — counted
          this.requestWithoutReply(kind);
          return;
        }
        // Nothing may throw into the NATS client: an exception in its callback ends its read loop, and the
        // connection, still "connected", reads nothing more until a ping times out minutes later.
        try {
          onMessage(msg);
        } catch (error) {
          this.logger.error('request refused: it could not be handled', {
            subject: subject.slice(0, 128),
            error: (error instanceof Error ? error.message : String(error)).slice(0, 256),
          });
          this.reply(msg, errorReply(GatewayErrorCode.Internal, 'the request could not be handled'));
        }
      },
    });
  }

  private async run<R>(
    msg: Msg,
    kind: SubjectKind,
    handle: () => R | Promise<R>,
    isBadRequest?: (reply: R) => boolean,
  ): Promise<void> {
    try {
      const reply = await handle();
      if (isBadRequest?.(reply) === true) this.metrics.badRequests.inc({ subject_kind: kind });
      this.reply(msg, reply);
    } catch (error) {
      this.metrics.handlerErrors.inc({ subject_kind: kind });
      this.logger.error('request handler failed', {
        kind,
        error: error instanceof Error ? error.message : String(error),
      });
      this.reply(msg, errorReply(GatewayErrorCode.Internal, 'internal error'));
    }
  }

  private reply(msg: Msg, body: unknown): void {
    try {
      let data = this.encoder.encode(JSON.stringify(body));
      const maxPayload = this.connection.client.info?.max_payload ?? 1_048_576;
      if (data.length > maxPayload) {
        // A requester waiting for an answer must get one: a reply NATS would refuse becomes a short error.
        this.logger.error('reply larger than the NATS max payload; answered with an error', { bytes: data.length });
        data = this.encoder.encode(JSON.stringify(errorReply(GatewayErrorCode.Internal, 'reply too large')));
      }
      msg.respond(data);
    } catch (error) {
      this.logger.warn('could not send a reply', { error: error instanceof Error ? error.message : String(error) });
    }
  }
}

const IGNORED: Parsed<undefined> = { ok: true, value: undefined };

/** An empty body read as `{}` (of no prototype, as `readJsonObject` reads). */
function emptyRequest(): { ok: true; value: Record<string, unknown> } {
  return { ok: true, value: Object.create(null) as Record<string, unknown> };
}

/** The app's handle of a NATS subscription: stopping it never drops what the server already routed here. */
export function stoppable(sub: Subscription): BusSubscription {
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= stopTaking(sub));
  return { unsubscribe: () => void stop(), stop };
}

/**
 * A plain unsubscribe forgets the subscription at once: a request the server routed here before it saw the
 * unsubscribe (in the socket, or still on the wire) is then dropped unanswered, and its requester waits its whole
 * timeout (outside tester: a withdrawal submit 30 ms after SIGTERM, 35 s, "outcome unknown" for a request never
 * stored). A drain sends the unsubscribe and a round trip behind it: whatever the server routed here before comes
 * first and is handled as usual.
 */
async function stopTaking(sub: Subscription): Promise<void> {
  if (sub.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STOP_ROUND_TRIP_WAIT_MS);
    timer.unref();
  });
  try {
    await Promise.race([sub.drain().catch(() => undefined), waited]);
  } finally {
    clearTimeout(timer);
    if (!sub.isClosed()) sub.unsubscribe();
  }
}

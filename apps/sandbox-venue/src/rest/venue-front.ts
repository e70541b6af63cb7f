/**
 * The venue's REST front: every `/api/3/...` request passes here, in the venue's order:
 * method (R4) → throttle per IP (§8) → injected fault → framework prechecks → key and signature (§5) →
 * body parse → anti-replay (§4.1) → the operation. Each refusal uses its endpoint family's body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger } from '#observability';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import { VENUE_CLOCK, type VenueClock } from '../ports.js';
import { VenueDirectory } from '../domain/directory.js';
import { isJsonObject, JsonSyntaxError, parseJson } from '../http/json.js';
import { readRawBody } from '../http/raw-body.js';
import { sendJson } from '../http/send.js';
import { AntiReplayLedger } from './auth/anti-replay.js';
import { signatureMatches } from './auth/signature.js';
import {
  authFailureReply,
  methodNotAllowedReply,
  serverErrorReply,
  throttledReply,
  withdrawalError,
  WithdrawalMessage,
} from './replies.js';
import { RequestThrottle } from './request-throttle.js';
import { RestFaults } from './rest-faults.js';
import type { VenueReply, VenueRoute } from './venue-route.js';
import { VenueMetrics } from '../venue-metrics.js';

export const VENUE_ROUTES = Symbol('VenueRoutes');

type Next = (error?: unknown) => void;

@Injectable()
export class VenueFront {
  private readonly replay: AntiReplayLedger;

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(VENUE_ROUTES) private readonly routes: VenueRoute[],
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(RequestThrottle) private readonly throttle: RequestThrottle,
    @Inject(RestFaults) private readonly faults: RestFaults,
    @Inject(VenueMetrics) private readonly metrics: VenueMetrics,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {
    this.replay = new AntiReplayLedger(config.tonceWindowMs, config.dialect.tonceOrder);
  }

  /** Express-style middleware; paths that are not the venue's go on to Nest (health, metrics, admin). */
  readonly middleware = (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    const url = new URL(req.url ?? '/', 'http://venue.local');
    const match = this.match(url.pathname);
    if (match === undefined) {
      next();
      return;
    }
    this.serve(req, url, match.route, match.params).then(
      (reply) => this.send(res, match.route, reply),
      (error: unknown) => {
        this.logger.error('unexpected failure', { route: match.route.template, error: String(error) });
        this.send(res, match.route, serverErrorReply(match.route.family, 500, this.clock.now()));
      },
    );
  };

  private match(path: string): { route: VenueRoute; params: string[] } | undefined {
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (m !== null) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    }
    return undefined;
  }

  private async serve(req: IncomingMessage, url: URL, route: VenueRoute, params: string[]): Promise<VenueReply> {
    const now = this.clock.now();
    if (req.method !== 'POST') {
      req.resume();
      return methodNotAllowedReply(now);
    }
    if (!this.throttle.admit(req.socket.remoteAddress ?? 'unknown')) {
      req.resume();
      this.metrics.authFailures.inc({ reason: 'throttled' });
      return throttledReply(route.family);
    }
    const rawBody = await readRawBody(req);

    const fault = this.faults.take(route.template);
    if (fault !== undefined && !fault.applyThenFail) return this.faultReply(route, fault.status, now);

    const pre = route.precheck?.(req, url.searchParams, now);
    if (pre !== undefined) return pre;

    const refuse = (reason: string, kind: 'signature' | 'nonce'): VenueReply => {
      this.metrics.authFailures.inc({ reason });
      return authFailureReply(route.family, kind, now);
    };
    const apiKey = header(req, 'rest-key');
    const sign = header(req, 'rest-sign');
    if (apiKey === undefined || sign === undefined) return refuse('missing_header', 'signature');
    const key = this.directory.key(apiKey);
    if (key === undefined) return refuse('unknown_key', 'signature');
    if (rawBody === undefined) return refuse('body_too_large', 'signature');
    if (!signatureMatches(this.config.signatureEncoding, key.apiSecret, url.pathname, rawBody, sign)) {
      return refuse('bad_signature', 'signature');
    }
    // §7.2: a missing body on a withdrawal endpoint is a field-validation failure (403), not an auth one.
    if (route.family === 'withdrawal' && rawBody.trim() === '') {
      this.metrics.badRequests.inc({ reason: 'empty_body' });
      return withdrawalError(403, WithdrawalMessage.InvalidSignedParams);
    }
    let body;
    try {
      body = parseJson(rawBody);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      return refuse('unparseable_body', 'signature');
    }
    if (!isJsonObject(body)) return refuse('unparseable_body', 'signature');

    const strict = route.family === 'withdrawal' || route.family === 'orderState' || route.family === 'participant';
    const verdict = this.replay.admit(apiKey, body, now, strict);
    if (verdict !== 'ok') return refuse(`nonce_${verdict}`, 'nonce');

    const user = this.directory.user(key.userUuid);
    if (user === undefined) return refuse('unknown_user', 'signature');
    const reply = await route.handle({ user, key, body, query: url.searchParams, params, now });
    if (fault !== undefined) return this.faultReply(route, fault.status, now);
    return reply;
  }

  private faultReply(route: VenueRoute, status: number, now: number): VenueReply {
    if (status === 401) return authFailureReply(route.family, 'signature', now);
    if (status === 429) return throttledReply(route.family);
    return serverErrorReply(route.family, status, now);
  }

  private send(res: ServerResponse, route: VenueRoute, reply: VenueReply): void {
    this.metrics.restRequests.inc({ path: route.template, status: String(reply.status) });
    sendJson(res, reply.status, reply.body, reply.headers);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** What a REST operation of the venue is, as the front (`venue-front.ts`) sees it. */
import type { IncomingMessage } from 'node:http';
import type { JsonObject, WireValue } from '../http/json.js';
import type { ApiKeyRecord, VenueUser } from '../domain/model.js';

/**
 * Endpoint families share their failure bodies (§7, spec-gaps R2–R5):
 *   withdrawal  — `{success:false,message}` envelope, auth failures and throttling 401
 *   participant — originator, beneficiaries: HTTP 200 with `resultCode`
 *   orderState  — 401/400 `{resultCode,timestamp}`
 *   trades      — `{error,message}`, auth failure always INVALID_SIGNATURE
 *   token       — 401 `{resultCode:"UNAUTHORISED",timestamp}`
 *   general     — balances, senders, transactions, transfers, limits, pairs: `{error,message}`
 */
export type EndpointFamily = 'withdrawal' | 'participant' | 'orderState' | 'trades' | 'token' | 'general';

export interface VenueReply {
  status: number;
  /** undefined = empty body (e.g. account details 404). */
  body?: WireValue;
  headers?: Record<string, string>;
}

export interface SignedCall {
  user: VenueUser;
  key: ApiKeyRecord;
  body: JsonObject;
  query: URLSearchParams;
  /** Path parameters captured by the route pattern. */
  params: string[];
  /** The venue clock at arrival. */
  now: number;
}

export interface VenueRoute {
  /** Metric label and documentation, e.g. `/api/3/withdrawal/fiat/{uuid}/cancel`. */
  template: string;
  pattern: RegExp;
  family: EndpointFamily;
  /** Checks the framework does before authentication (order state: query parameter and headers). */
  precheck?(req: IncomingMessage, query: URLSearchParams, now: number): VenueReply | undefined;
  handle(call: SignedCall): VenueReply | Promise<VenueReply>;
}

/** An endpoint provider contributes its routes to the front. */
export interface VenueEndpoints {
  routes(): VenueRoute[];
}

export function exactPath(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
}

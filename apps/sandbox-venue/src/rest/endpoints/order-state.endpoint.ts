/**
 * §4.10 `POST /api/3/svc/rest/orders/state?clientRequestId=…`: always an array (another account's order →
 * empty array). Missing query parameter or auth header → framework 400 (R5, before authentication); any
 * authentication failure → 401; identifier rules broken → 400 INVALID_PARAMETERS.
 */
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RestPath } from '#venue-api';
import { isoUtc } from '../../domain/time-format.js';
import { ORDER_RECORDS, type OrderRecord, type OrderRecords } from '../../ports.js';
import type { WireValue } from '../../http/json.js';
import { isValidIdentifier } from '../../trading/session/identifier-rules.js';
import { frameworkBadRequest, invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

@Injectable()
export class OrderStateEndpoint implements VenueEndpoints {
  constructor(@Optional() @Inject(ORDER_RECORDS) private readonly orders: OrderRecords | undefined) {}

  routes(): VenueRoute[] {
    return [
      {
        template: RestPath.OrderState,
        pattern: exactPath(RestPath.OrderState),
        family: 'orderState',
        precheck: (req, query, now) => this.precheck(req, query, now),
        handle: (c) => this.read(c),
      },
    ];
  }

  private precheck(req: IncomingMessage, query: URLSearchParams, now: number): VenueReply | undefined {
    const missingHeader = ['rest-key', 'rest-sign'].some((h) => typeof req.headers[h] !== 'string');
    if (missingHeader || query.get('clientRequestId') === null) {
      return frameworkBadRequest(RestPath.OrderState, isoUtc(now));
    }
    return undefined;
  }

  private read(call: SignedCall): VenueReply {
    const clientRequestId = call.query.get('clientRequestId') ?? '';
    const sessionId = call.query.get('sessionId');
    if (!isValidIdentifier(clientRequestId) || (sessionId !== null && !isValidIdentifier(sessionId))) {
      return invalidParameterReply('orderState', 'identifier rules', call.now);
    }
    const records = (this.orders?.findByClientRequestId(call.user.uuid, clientRequestId) ?? []).filter(
      (r) => sessionId === null || r.sessionId === sessionId,
    );
    return { status: 200, body: records.map((r) => orderStateWire(r, call.now)) };
  }
}

/** §2.8: clientRequestId stays empty until an outcome is recorded, even on a lookup by it. */
function orderStateWire(r: OrderRecord, now: number): WireValue {
  return {
    messageType: 'orderState',
    timestamp: Math.trunc(now),
    transactionId: r.transactionId,
    clientRequestId: r.orderStatus === 'PENDING' ? '' : r.clientRequestId,
    orderStatus: r.orderStatus,
    subscriptionStatus: r.subscriptionStatus,
    sessionId: r.sessionId,
    message: r.message,
    code: r.code,
  };
}

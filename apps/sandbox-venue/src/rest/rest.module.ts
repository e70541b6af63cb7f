/** The venue's REST operations (§4.3–4.11), served by `VenueFront` as one middleware. */
import { Module } from '@nestjs/common';
import { AccountExtrasEndpoint } from './endpoints/account-extras.endpoint.js';
import { BalancesEndpoint } from './endpoints/balances.endpoint.js';
import { OrderStateEndpoint } from './endpoints/order-state.endpoint.js';
import { ParticipantsEndpoint } from './endpoints/participants.endpoint.js';
import { SendersEndpoint } from './endpoints/senders.endpoint.js';
import { TokenEndpoint } from './endpoints/token.endpoint.js';
import { TradesEndpoint } from './endpoints/trades.endpoint.js';
import { TransactionsEndpoint } from './endpoints/transactions.endpoint.js';
import { WithdrawalsEndpoint } from './endpoints/withdrawals.endpoint.js';
import { OddRows } from './odd-rows.js';
import { RequestThrottle } from './request-throttle.js';
import { RestFaults } from './rest-faults.js';
import type { VenueEndpoints } from './venue-route.js';
import { VENUE_ROUTES, VenueFront } from './venue-front.js';

const endpoints = [
  TokenEndpoint,
  BalancesEndpoint,
  TradesEndpoint,
  ParticipantsEndpoint,
  SendersEndpoint,
  WithdrawalsEndpoint,
  OrderStateEndpoint,
  TransactionsEndpoint,
  AccountExtrasEndpoint,
];

@Module({
  providers: [
    ...endpoints,
    RequestThrottle,
    RestFaults,
    OddRows,
    VenueFront,
    {
      provide: VENUE_ROUTES,
      useFactory: (...providers: VenueEndpoints[]) => providers.flatMap((p) => p.routes()),
      inject: endpoints,
    },
  ],
  exports: [VenueFront, RestFaults, OddRows],
})
export class RestModule {}

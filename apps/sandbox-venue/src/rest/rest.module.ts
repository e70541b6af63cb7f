/** The venue's REST operations (§4.3–4.11), served by `VenueFront` as one middleware. */
import { Module } from '@nestjs/common';
import { TokenEndpoint } from './endpoints/token.endpoint.js';
import { RequestThrottle } from './request-throttle.js';
import { RestFaults } from './rest-faults.js';
import type { VenueEndpoints } from './venue-route.js';
import { VENUE_ROUTES, VenueFront } from './venue-front.js';

const endpoints = [TokenEndpoint];

@Module({
  providers: [
    ...endpoints,
    RequestThrottle,
    RestFaults,
    VenueFront,
    {
      provide: VENUE_ROUTES,
      useFactory: (...providers: VenueEndpoints[]) => providers.flatMap((p) => p.routes()),
      inject: endpoints,
    },
  ],
  exports: [VenueFront, RestFaults],
})
export class RestModule {}

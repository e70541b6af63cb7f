import {
  PersistentNonceSource,
  TonceSource,
  VenueRestClient,
  type AntiReplaySource,
  type VenueRestEvents,
} from '#venue-api';
import type { ResolvedVenueOptions } from '../venue-options.js';

/** The venue REST client for the token and order-state calls, with the configured anti-replay source. */
export function createVenueRestClient(options: ResolvedVenueOptions, events?: VenueRestEvents): VenueRestClient {
  return new VenueRestClient({
    baseUrl: options.restBaseUrl,
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
    signatureEncoding: options.signatureEncoding,
    antiReplay: antiReplaySource(options),
    timeoutMs: options.restTimeoutMs,
    requestsPerSecond: options.restRequestsPerSecond,
    ...(options.tokenPath === undefined ? {} : { tokenPath: options.tokenPath }),
    ...(events === undefined ? {} : { events }),
  });
}

function antiReplaySource(options: ResolvedVenueOptions): AntiReplaySource {
  if (options.antiReplay === 'tonce') return new TonceSource();
  if (options.nonceDir === undefined || options.nonceDir === '') {
    throw new Error('antiReplay "nonce" needs nonceDir (the persistent nonce directory)');
  }
  return new PersistentNonceSource({ directory: options.nonceDir, apiKey: options.apiKey });
}

import {
  PersistentNonceSource,
  TonceSource,
  VenueRestClient,
  type AntiReplaySource,
  type VenueRestMetrics,
} from '#venue-api';
import type { AccountSyncConfig } from '../config.js';

/**
 * The process's one venue REST client: every part of the app (sync, webhook address list, withdrawals) calls
 * the venue through it, so the process stays within its share of the venue's 30 requests/s
 * (`VENUE_REST_REQUESTS_PER_SECOND`), also across a restart (the first second counts as used by the last life).
 */
export function createVenueRestClient(config: AccountSyncConfig, metrics: VenueRestMetrics): VenueRestClient {
  return new VenueRestClient({
    baseUrl: config.VENUE_REST_URL,
    apiKey: config.VENUE_API_KEY,
    apiSecret: config.VENUE_API_SECRET,
    signatureEncoding: config.VENUE_SIGNATURE_ENCODING,
    antiReplay: antiReplaySource(config),
    requestsPerSecond: config.VENUE_REST_REQUESTS_PER_SECOND,
    // The largest share of the IP's budget: a restart must not stack two lives' seconds at the venue.
    startWindowFull: true,
    timeoutMs: config.VENUE_REST_TIMEOUT_MS,
    events: metrics,
    ...(config.VENUE_WEBHOOK_IPS_URL === undefined ? {} : { webhookIpsUrl: config.VENUE_WEBHOOK_IPS_URL }),
  });
}

function antiReplaySource(config: AccountSyncConfig): AntiReplaySource {
  if (config.VENUE_ANTI_REPLAY === 'tonce') return new TonceSource();
  // The config's rules make VENUE_NONCE_DIR required in nonce mode.
  return new PersistentNonceSource({ directory: config.VENUE_NONCE_DIR ?? '', apiKey: config.VENUE_API_KEY });
}

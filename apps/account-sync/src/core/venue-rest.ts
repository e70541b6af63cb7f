import { PersistentNonceSource, TonceSource, VenueRestClient, type AntiReplaySource } from '#venue-api';
import type { AccountSyncConfig } from '../config.js';
import type { VenueRestMetrics } from './venue-rest-metrics.js';

/**
 * The process's one venue REST client: every part of the app (sync, webhook address list, withdrawals) calls
 * the venue through it, so the process stays within its share of the venue's 30 requests/s
 * (`VENUE_REST_REQUESTS_PER_SECOND`).
 */
export function createVenueRestClient(config: AccountSyncConfig, metrics: VenueRestMetrics): VenueRestClient {
  return new VenueRestClient({
    baseUrl: config.VENUE_REST_URL,
    apiKey: config.VENUE_API_KEY,
    apiSecret: config.VENUE_API_SECRET,
    signatureEncoding: config.VENUE_SIGNATURE_ENCODING,
    antiReplay: antiReplaySource(config),
    requestsPerSecond: config.VENUE_REST_REQUESTS_PER_SECOND,
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

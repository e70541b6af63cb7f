import { filter, firstValueFrom, type Observable, timeout } from 'rxjs';
import type { RunningSandbox } from '../../../../sandbox-venue/src/bootstrap.js';
import { MetricsRegistry } from '#observability';
import { createVenueRestClient } from '../rest/create-rest-client.js';
import { RestVenueSources } from '../rest/venue-sources.js';
import { type VenueOptions, withDefaults } from '../venue-options.js';
import { VenueSide, type VenueSideDeps } from '../venue-side.js';
import { captureLogger } from './test-logger.js';

/** Short timers so every scenario runs in well under a second or two. */
export function venueOptions(sandbox: RunningSandbox, overrides: Partial<VenueOptions> = {}): VenueOptions {
  return {
    restBaseUrl: sandbox.restBaseUrl,
    wsUrl: sandbox.wsUrl,
    apiKey: sandbox.credentials.primary.apiKey,
    apiSecret: sandbox.credentials.primary.apiSecret,
    signatureEncoding: 'base64',
    sessionId: `conn-test-${Math.random().toString(36).slice(2, 10)}`,
    antiReplay: 'tonce',
    staleAfterMs: 1_000,
    stallTimeoutMs: 600,
    reconnect: { initialMs: 50, maxMs: 400 },
    connectionMaxAgeMs: 60_000,
    orderReplyTimeoutMs: 5_000,
    account: 'acct1',
    ...overrides,
  };
}

/**
 * A real VenueSide against the sandbox; the tokens it used are recorded so logs can be checked for them.
 * `random`: the session's jitter source (a test that must see a backoff fixes it: full jitter may draw 0 ms).
 */
export function startVenueSide(
  sandbox: RunningSandbox,
  overrides: Partial<VenueOptions> = {},
  deps: Pick<VenueSideDeps, 'random'> = {},
) {
  const options = venueOptions(sandbox, overrides);
  const rest = new RestVenueSources(createVenueRestClient(withDefaults(options)));
  const tokens: string[] = [];
  const { logger, lines } = captureLogger();
  const registry = new MetricsRegistry('connector-test', { defaultMetrics: false });
  const side = new VenueSide(options, registry, logger, {
    tokens: {
      fetchToken: async () => {
        const token = await rest.fetchToken();
        tokens.push(token);
        return token;
      },
    },
    orderStates: rest,
    ...deps,
  });
  side.session.start();
  return { side, options, tokens, lines, registry, rest };
}

export function next<T>(source: Observable<T>, predicate: (value: T) => boolean, ms = 10_000): Promise<T> {
  return firstValueFrom(source.pipe(filter(predicate), timeout(ms)));
}

export async function admin(sandbox: RunningSandbox, path: string, body: unknown = {}): Promise<unknown> {
  const response = await fetch(`${sandbox.adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: HTTP ${response.status}`);
  return response.json();
}

export { eventually } from '#testing';

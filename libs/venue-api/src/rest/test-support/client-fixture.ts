/** A scripted venue on a given port and a client pointed at it (real sockets, real signing). Test support. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TonceSource } from '../../auth/anti-replay.js';
import { PersistentNonceSource } from '../../auth/persistent-nonce.js';
import type { VenueRestClientConfig } from '../client-config.js';
import { VenueRestClient } from '../venue-rest-client.js';
import { ScriptedVenue } from './scripted-venue.js';

export const API_KEY = 'key-abc';
/** Base64 of 32 bytes; the base64 encoding decodes it (R1 (b)). */
export const API_SECRET = Buffer.from('unit-test-secret-0123456789abcdef').toString('base64');

export class ClientFixture {
  readonly venue: ScriptedVenue;
  private nonceDirectories: string[] = [];

  private constructor(venue: ScriptedVenue) {
    this.venue = venue;
  }

  /** `port`: a free port (from `#testing`'s freePort in the specs). */
  static async start(port: number, encoding: 'base64' | 'hex' = 'base64'): Promise<ClientFixture> {
    const venue = new ScriptedVenue(API_SECRET, encoding);
    await venue.start(port);
    return new ClientFixture(venue);
  }

  /** A tonce-mode client (the default source). */
  client(overrides: Partial<VenueRestClientConfig> = {}): VenueRestClient {
    return new VenueRestClient({
      baseUrl: this.venue.baseUrl,
      apiKey: API_KEY,
      apiSecret: API_SECRET,
      antiReplay: new TonceSource(),
      ...overrides,
    });
  }

  /** A nonce-mode client backed by the real persistent nonce source in a temporary directory. */
  async nonceClient(overrides: Partial<VenueRestClientConfig> = {}): Promise<VenueRestClient> {
    const directory = await mkdtemp(join(tmpdir(), 'venue-rest-nonce-'));
    this.nonceDirectories.push(directory);
    return this.client({ antiReplay: new PersistentNonceSource({ directory, apiKey: API_KEY }), ...overrides });
  }

  async stop(): Promise<void> {
    await this.venue.stop();
    await Promise.all(this.nonceDirectories.map((directory) => rm(directory, { recursive: true, force: true })));
  }
}

/** The anti-replay token of a body as text (`tonce` or `nonce`), read with a regex so no number rounds it. */
export function antiReplayOf(bodyText: string): { field: string; digits: string } | undefined {
  const match = /"(tonce|nonce)":(\d+)/.exec(bodyText);
  return match === null || match[1] === undefined || match[2] === undefined
    ? undefined
    : { field: match[1], digits: match[2] };
}

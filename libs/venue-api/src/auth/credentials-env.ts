/**
 * The venue credentials every app reads the same way, mixed into its config class
 * (`class AppConfig extends withVenueCredentialsEnv(...)`): the REST URL, the API key and secret, the
 * signature encoding (R1) — and, for the apps that may own a nonce, the anti-replay mode and the nonce
 * directory (`withVenueAntiReplayEnv`). Rules from #observability (env-rules); values never in a message.
 */
import { ValidateBy, ValidateIf } from 'class-validator';
import { directoryUsable, EnvEnum, EnvRequired, EnvText, EnvUrl, type EnvClass } from '#observability';
import { apiKeyProblem, apiSecretProblem, SIGNATURE_ENCODINGS, type SignatureEncoding } from './signing.js';

export function withVenueCredentialsEnv<Base extends EnvClass>(base: Base) {
  abstract class VenueCredentialsEnv extends base {
    // ---- Venue REST credentials
    @EnvRequired() @EnvUrl({ schemes: ['http', 'https'] }) VENUE_REST_URL!: string;
    // Sent as the Rest-Key header: a line break or a space in it failed every call as "connection failed", forever.
    @EnvRequired()
    @ValidateBy({
      name: 'isUsableApiKey',
      validator: {
        validate: (value: unknown) =>
          value === undefined || (typeof value === 'string' && apiKeyProblem(value) === undefined),
        defaultMessage: () =>
          'VENUE_API_KEY must be 1 to 256 visible ASCII characters (no spaces or control characters: it is sent as a header)',
      },
    })
    VENUE_API_KEY!: string;
    // Checked against the encoding here: otherwise every signed call (and token fetch) fails, backing off forever.
    @ValidateBy({
      name: 'isUsableApiSecret',
      validator: {
        validate: (value: unknown, args) =>
          typeof value === 'string' &&
          apiSecretProblem(value, (args?.object as VenueCredentialsEnv).VENUE_SIGNATURE_ENCODING) === undefined,
        defaultMessage: () => 'VENUE_API_SECRET must be non-empty, and Base64 with VENUE_SIGNATURE_ENCODING=base64',
      },
    })
    VENUE_API_SECRET!: string;
    @EnvEnum(SIGNATURE_ENCODINGS) VENUE_SIGNATURE_ENCODING: SignatureEncoding = 'base64';
  }
  return VenueCredentialsEnv;
}

/** tonce (default) or a persistent nonce, which needs its directory (shared by every process using the key). */
export function withVenueAntiReplayEnv<Base extends EnvClass>(base: Base) {
  abstract class VenueAntiReplayEnv extends base {
    @EnvEnum(['tonce', 'nonce']) VENUE_ANTI_REPLAY: 'tonce' | 'nonce' = 'tonce';
    /** Required in nonce mode: the persistent nonce lives there. */
    @ValidateIf(
      (config: VenueAntiReplayEnv) => config.VENUE_ANTI_REPLAY === 'nonce' || config.VENUE_NONCE_DIR !== undefined,
    )
    @EnvRequired()
    @EnvText({ max: 4_096, describe: 'a directory path (required with VENUE_ANTI_REPLAY=nonce)' })
    // A file in the way failed every signed call ("EEXIST … mkdir"), backing off forever after the start.
    @ValidateBy({
      name: 'isUsableDirectory',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value === '' || directoryUsable(value),
        defaultMessage: () =>
          'VENUE_NONCE_DIR must be a directory this process can write, or a path where one can be made',
      },
    })
    VENUE_NONCE_DIR?: string;
  }
  return VenueAntiReplayEnv;
}

export * from './signing.js';
export * from './anti-replay.js';
export { PersistentNonceSource, NonceStoreCorruptError, nonceFileName } from './persistent-nonce.js';
export type { PersistentNonceOptions } from './persistent-nonce.js';
export { FileLockTimeoutError, processExists } from './lock-file.js';
export { withVenueAntiReplayEnv, withVenueCredentialsEnv } from './credentials-env.js';

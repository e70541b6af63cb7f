/**
 * `SANDBOX_CREDENTIALS_FILE`: the sandbox writes where it listens and its primary credentials as JSON, so a
 * launcher (tools/stack) wires the gateway's apps to it without a human copying a secret from the banner.
 * Written atomically (temporary file, then rename) and readable by the owner only: it holds an API secret.
 */
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunningSandbox } from './bootstrap.js';

/** The file's shape (version 1). Readers must ignore fields they do not know. */
export interface SandboxCredentialsFile {
  v: 1;
  restBaseUrl: string;
  wsUrl: string;
  ipsUrl: string;
  adminUrl: string;
  signatureEncoding: 'base64' | 'hex';
  apiKey: string;
  /** Base64 (spec-gaps R1). */
  apiSecret: string;
  defaultGroupUuid: string;
  subGroupUuid: string;
}

export function credentialsFileOf(venue: RunningSandbox): SandboxCredentialsFile {
  return {
    v: 1,
    restBaseUrl: venue.restBaseUrl,
    wsUrl: venue.wsUrl,
    ipsUrl: venue.ipsUrl,
    adminUrl: venue.adminUrl,
    signatureEncoding: venue.config.signatureEncoding,
    apiKey: venue.credentials.primary.apiKey,
    apiSecret: venue.credentials.primary.apiSecret,
    defaultGroupUuid: venue.seed.defaultGroupUuid,
    subGroupUuid: venue.seed.subGroupUuid,
  };
}

export async function writeCredentialsFile(path: string, venue: RunningSandbox): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(credentialsFileOf(venue), null, 2) + '\n', { mode: 0o600 });
  await chmod(partial, 0o600);
  await rename(partial, path);
}

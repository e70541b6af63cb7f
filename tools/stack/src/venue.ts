/**
 * Where the venue is and how to sign for it: read from the sandbox's credentials file (the sandbox writes it
 * once it listens, apps/sandbox-venue/src/credentials-file.ts) or from configuration for the real venue (the
 * key and the secret from the environment or from files, checked before anything starts).
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { apiKeyProblem, apiSecretProblem } from '#venue-api';
import type { StackConfig } from './stack-config.js';

export interface VenueWiring {
  restUrl: string;
  wsUrl: string;
  ipsUrl: string;
  apiKey: string;
  apiSecret: string;
  signatureEncoding: 'base64' | 'hex';
  /** Sandbox only: its operator API. */
  adminUrl?: string;
  /** Sandbox only: the primary user's Natural group (the one to ask prices for). */
  defaultGroupUuid?: string;
}

/** The real venue's wiring from validated configuration; problems (unreadable file, unusable secret) listed. */
export async function realVenueWiring(config: StackConfig): Promise<{ wiring?: VenueWiring; problems: string[] }> {
  // the configuration checked these already (StackConfig's rules); read again here, a file may have changed since
  const key = credential(config.VENUE_API_KEY, config.VENUE_API_KEY_FILE, 'VENUE_API_KEY_FILE');
  const secret = credential(config.VENUE_API_SECRET, config.VENUE_API_SECRET_FILE, 'VENUE_API_SECRET_FILE');
  const problems = [key.problem, secret.problem].filter((problem) => problem !== undefined);
  for (const unusable of [keyProblem(config, key.value), secretProblem(config, secret.value)]) {
    if (unusable !== undefined) problems.push(unusable);
  }
  const [apiKey, apiSecret] = [key.value, secret.value];
  if (problems.length > 0 || apiKey === undefined || apiSecret === undefined) return { problems };
  return {
    problems,
    wiring: {
      restUrl: required(config.VENUE_REST_URL),
      wsUrl: required(config.VENUE_WS_URL),
      ipsUrl: required(config.VENUE_IPS_URL),
      apiKey,
      apiSecret,
      signatureEncoding: config.VENUE_SIGNATURE_ENCODING,
    },
  };
}

/** The sandbox's credentials file as a wiring (undefined until the file is complete). */
export async function sandboxWiring(path: string): Promise<VenueWiring | undefined> {
  let file: Record<string, unknown>;
  try {
    file = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined; // not written yet
  }
  const text = (key: string): string | undefined => (typeof file[key] === 'string' ? (file[key] as string) : undefined);
  const [restUrl, wsUrl, ipsUrl, apiKey, apiSecret] = ['restBaseUrl', 'wsUrl', 'ipsUrl', 'apiKey', 'apiSecret'].map(
    text,
  );
  if (!restUrl || !wsUrl || !ipsUrl || !apiKey || !apiSecret) return undefined;
  const adminUrl = text('adminUrl');
  const defaultGroupUuid = text('defaultGroupUuid');
  return {
    restUrl,
    wsUrl,
    ipsUrl,
    apiKey,
    apiSecret,
    signatureEncoding: text('signatureEncoding') === 'hex' ? 'hex' : 'base64',
    ...(adminUrl !== undefined ? { adminUrl } : {}),
    ...(defaultGroupUuid !== undefined ? { defaultGroupUuid } : {}),
  };
}

/** A key or a secret is a line of text: a file far larger is not one (and is not read). */
const MAX_CREDENTIAL_FILE_BYTES = 65_536;

/**
 * A key or secret given as a value or as a file: its text, or why the file cannot give it (never its content).
 * Synchronous: read once by the configuration's rules at start-up, before anything runs.
 */
export function credential(
  value: string | undefined,
  file: string | undefined,
  fileVariable: string,
): { value?: string; problem?: string } {
  if (value !== undefined) return { value };
  if (file === undefined) return {};
  let content: string;
  try {
    // judged before reading: /dev/zero or a pipe never ends (it hung the launcher at its configuration)
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_CREDENTIAL_FILE_BYTES) {
      return { problem: `${fileVariable} must name a regular file of at most ${MAX_CREDENTIAL_FILE_BYTES} bytes` };
    }
    content = readFileSync(file, 'utf8').trim();
  } catch {
    return { problem: `${fileVariable} must name a readable file` };
  }
  return content === '' ? { problem: `${fileVariable} names an empty file` } : { value: content };
}

/** Why the key cannot be sent as the Rest-Key header, naming the variable it came from (never the key). */
export function keyProblem(
  config: Pick<StackConfig, 'VENUE_API_KEY_FILE'>,
  key: string | undefined,
): string | undefined {
  if (key === undefined || apiKeyProblem(key) === undefined) return undefined;
  const [from, verb] =
    config.VENUE_API_KEY_FILE !== undefined ? ['VENUE_API_KEY_FILE', 'hold'] : ['VENUE_API_KEY', 'be'];
  return `${from} must ${verb} 1 to 256 visible ASCII characters (no spaces or control characters: it is sent as a header)`;
}

/** Why the secret cannot sign with the chosen encoding, naming the variable it came from (never the secret). */
export function secretProblem(
  config: Pick<StackConfig, 'VENUE_API_SECRET_FILE' | 'VENUE_SIGNATURE_ENCODING'>,
  secret: string | undefined,
): string | undefined {
  if (secret === undefined || apiSecretProblem(secret, config.VENUE_SIGNATURE_ENCODING) === undefined) return undefined;
  const from = config.VENUE_API_SECRET_FILE !== undefined ? 'VENUE_API_SECRET_FILE' : 'VENUE_API_SECRET';
  return `${from} must hold a non-empty secret, Base64 with VENUE_SIGNATURE_ENCODING=base64`;
}

function required(value: string | undefined): string {
  if (value === undefined) throw new Error('validated configuration lacks a required value');
  return value;
}

/** `npm run sandbox`: the sandbox venue on SANDBOX_PORT (default 8080). */
import 'reflect-metadata';
import { ConfigError, exitOnConfigError, JsonLogger, loadConfig, refuseUnusableListens } from '#observability';
import { startSandboxVenue } from './bootstrap.js';
import { writeCredentialsFile } from './credentials-file.js';
import { SandboxEnv, sandboxOptionsFromEnv } from './env.js';

const log = new JsonLogger('sandbox-venue', 'main');

async function main(): Promise<void> {
  const env = loadConfig(SandboxEnv, process.env);
  // a host not of this machine: a bad setting (78); a port in use: named, exit 75 (start again); before anything starts
  await refuseUnusableListens(
    [{ port: env.SANDBOX_PORT, host: env.SANDBOX_HOST, portVariable: 'SANDBOX_PORT', hostVariable: 'SANDBOX_HOST' }],
    'sandbox-venue',
    'apps/sandbox-venue/README.md',
  );
  const venue = await startSandboxVenue({ ...sandboxOptionsFromEnv(env), processMetrics: true });
  if (env.SANDBOX_CREDENTIALS_FILE !== undefined) await writeCredentialsFile(env.SANDBOX_CREDENTIALS_FILE, venue);
  const { primary } = venue.credentials;
  // One JSON line like every app's log; the secret is never in it (the credentials file, owner-only, has it).
  log.info('sandbox venue is up', {
    restBaseUrl: venue.restBaseUrl,
    wsUrl: venue.wsUrl,
    ipsUrl: venue.ipsUrl,
    adminUrl: venue.adminUrl,
    apiKey: primary.apiKey,
    signing: venue.config.signatureEncoding,
    defaultGroupUuid: venue.seed.defaultGroupUuid,
    wiringFile: env.SANDBOX_CREDENTIALS_FILE ?? null,
  });
  // Without a credentials file a human started it (`npm run sandbox`) and needs the secret: a banner for them.
  if (env.SANDBOX_CREDENTIALS_FILE === undefined) {
    process.stdout.write(
      [
        '',
        'Sandbox venue is up',
        `  REST base URL     ${venue.restBaseUrl}`,
        `  WebSocket URL     ${venue.wsUrl}?token=<token>&sessionId=<optional>`,
        `  Webhook IP list   ${venue.ipsUrl}`,
        `  Admin API         ${venue.adminUrl}`,
        `  Health / metrics  ${venue.restBaseUrl}/health  ${venue.restBaseUrl}/metrics`,
        `  API key           ${primary.apiKey}`,
        `  API secret (b64)  ${primary.apiSecret}`,
        `  Signature         ${venue.config.signatureEncoding}`,
        `  Default group     ${venue.seed.defaultGroupUuid}`,
        '',
      ].join('\n') + '\n',
    );
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down on ${signal}`);
    venue.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  // a bad setting: one line per problem, exit 78, as every app of the gateway
  if (error instanceof ConfigError) exitOnConfigError(error, 'sandbox-venue', 'apps/sandbox-venue/README.md');
  log.error('sandbox venue failed to start', { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
});

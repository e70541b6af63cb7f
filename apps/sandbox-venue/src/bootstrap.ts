/**
 * Starts the sandbox venue: REST, WebSocket, webhooks, the address list and the operator API on one HTTP
 * port. Used by `main.ts` and by every test that needs a venue (`startSandboxVenue({ port: 0 })`).
 */
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { JsonLogger } from '#observability';
import { RestPath, WS_CLIENT_PATH } from '#venue-api';
import { SandboxAppModule } from './app.module.js';
import { DEFAULT_SANDBOX_CONFIG, type SandboxConfig, type SandboxOptions } from './config.js';
import { dialectOf } from './dialect.js';
import { SEED_KEYS, SeedIds } from './domain/seed.js';
import { validateSandboxConfig } from './env.js';
import { VenueFront } from './rest/venue-front.js';
import { attachTrading } from './trading-attachment.js';

export interface SandboxCredentials {
  apiKey: string;
  /** Base64 (spec-gaps R1). */
  apiSecret: string;
  userUuid: string;
}

export interface RunningSandbox {
  /** e.g. `http://127.0.0.1:8080` — REST paths (`/api/3/...`) are appended to it. */
  restBaseUrl: string;
  /** `ws://127.0.0.1:<port>/svc/ws/ws-client` (add `?token=…&sessionId=…`). */
  wsUrl: string;
  ipsUrl: string;
  /** Operator API root, e.g. `http://127.0.0.1:8080/admin`. */
  adminUrl: string;
  config: SandboxConfig;
  credentials: {
    /** User 1, rights trade/withdraw/get_info. */
    primary: SandboxCredentials;
    /** User 1, no `withdraw` (no Move Funds). */
    noMoveFunds: SandboxCredentials;
    /** User 2 (SHIB.USD disabled for it). */
    secondUser: SandboxCredentials;
    /** A colleague of user 1 holding ROLE_OPERATIONS on user 1's Default group. */
    colleague: SandboxCredentials;
  };
  seed: typeof SeedIds & { defaultGroupUuid: string; subGroupUuid: string };
  close(): Promise<void>;
}

function credentials(index: number): SandboxCredentials {
  const key = SEED_KEYS[index];
  if (key === undefined) throw new Error(`seed key ${index} missing`);
  return { apiKey: key.apiKey, apiSecret: key.apiSecret, userUuid: key.userUuid };
}

export async function startSandboxVenue(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config: SandboxConfig = {
    ...DEFAULT_SANDBOX_CONFIG,
    port: 0,
    ...options,
    dialect: dialectOf(options.dialect ?? DEFAULT_SANDBOX_CONFIG.dialect),
  };
  validateSandboxConfig(config);
  const app = await NestFactory.create<NestExpressApplication>(SandboxAppModule.forRoot(config), {
    logger: new JsonLogger('sandbox-venue', 'nest', 'warn'),
    abortOnError: false,
  });
  app.enableShutdownHooks([]);
  // Before init: the venue front must see the raw body before any body parser (§5.2 signs the exact text).
  app.use(app.get(VenueFront).middleware);
  await app.init();
  const detachTrading = attachTrading(app);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address() as AddressInfo;
  const origin = `http://${config.host}:${address.port}`;
  let closed: Promise<void> | undefined;
  return {
    restBaseUrl: origin,
    wsUrl: `ws://${config.host}:${address.port}${WS_CLIENT_PATH}`,
    ipsUrl: `${origin}${RestPath.WebhookIps}`,
    adminUrl: `${origin}/admin`,
    config,
    credentials: {
      primary: credentials(0),
      noMoveFunds: credentials(1),
      secondUser: credentials(2),
      colleague: credentials(3),
    },
    seed: { ...SeedIds, defaultGroupUuid: SeedIds.defaultGroup, subGroupUuid: SeedIds.subGroup },
    close: () => {
      closed ??= (async () => {
        await detachTrading();
        await app.close();
      })();
      return closed;
    },
  };
}

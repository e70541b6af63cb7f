import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxVenue, type RunningSandbox } from './bootstrap.js';
import { writeCredentialsFile, type SandboxCredentialsFile } from './credentials-file.js';

describe('SANDBOX_CREDENTIALS_FILE', () => {
  let venue: RunningSandbox;
  let dir: string;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'gw-sandbox-credentials-'));
  });
  afterAll(async () => {
    await venue?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the URLs and the primary key with its secret, readable by the owner only', async () => {
    const path = join(dir, 'nested', 'credentials.json');
    await writeCredentialsFile(path, venue);
    const file = JSON.parse(await readFile(path, 'utf8')) as SandboxCredentialsFile;
    expect(file).toEqual({
      v: 1,
      restBaseUrl: venue.restBaseUrl,
      wsUrl: venue.wsUrl,
      ipsUrl: venue.ipsUrl,
      adminUrl: venue.adminUrl,
      signatureEncoding: 'base64',
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      defaultGroupUuid: venue.seed.defaultGroupUuid,
      subGroupUuid: venue.seed.subGroupUuid,
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});

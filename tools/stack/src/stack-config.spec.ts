import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { StackConfig } from './stack-config.js';
import { realVenueWiring } from './venue.js';

const problems = (env: Record<string, string>): string[] => configProblems(StackConfig, env);

const REAL = {
  STACK_VENUE: 'real',
  VENUE_REST_URL: 'https://venue.example',
  VENUE_WS_URL: 'wss://venue.example/svc/ws/ws-client',
  VENUE_IPS_URL: 'https://venue.example/ips.json',
};

describe('launcher configuration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-stack-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('needs nothing against the sandbox: data folder, embedded NATS on 4222, account default', () => {
    expect(loadConfig(StackConfig, {})).toMatchObject({
      STACK_DATA_DIR: 'data',
      STACK_NATS_PORT: 4222,
      STACK_VENUE: 'sandbox',
      SANDBOX_PORT: 8080,
      CONNECTOR_HTTP_PORT: 3001,
      ACCOUNT: 'default',
      NATS_SUBJECT_PREFIX: 'gw.v1',
    });
  });

  it('log rotation: 50 MB and 3 files by default; 0 turns it off; a size too small, a bad count refused by name', () => {
    expect(loadConfig(StackConfig, {})).toMatchObject({ STACK_LOG_MAX_BYTES: 50_000_000, STACK_LOG_FILES: 3 });
    expect(loadConfig(StackConfig, { STACK_LOG_MAX_BYTES: '0', STACK_LOG_FILES: '1' })).toMatchObject({
      STACK_LOG_MAX_BYTES: 0,
      STACK_LOG_FILES: 1,
    });
    expect(problems({ STACK_LOG_MAX_BYTES: '1000', STACK_LOG_FILES: '100' })).toEqual([]);
    expect(problems({ STACK_LOG_MAX_BYTES: '999' })).toEqual([
      'STACK_LOG_MAX_BYTES must be 0 (no rotation) or at least 1000',
    ]);
    expect(problems({ STACK_LOG_MAX_BYTES: '50MB' })).toEqual([
      expect.stringMatching(/^STACK_LOG_MAX_BYTES must be a decimal integer/),
    ]);
    expect(problems({ STACK_LOG_MAX_BYTES: '-1' })).toEqual([
      expect.stringMatching(/^STACK_LOG_MAX_BYTES must be .*from 0 to 1000000000000/),
    ]);
    expect(problems({ STACK_LOG_FILES: '0' })).toEqual([
      expect.stringMatching(/^STACK_LOG_FILES must be from 1 to 100/),
    ]);
    expect(problems({ STACK_LOG_FILES: '101' })).toEqual([
      expect.stringMatching(/^STACK_LOG_FILES must be from 1 to 100/),
    ]);
  });

  it('the real venue: URLs, key and secret required, by name', () => {
    expect(problems({ STACK_VENUE: 'real' })).toEqual([
      'VENUE_REST_URL must be set with STACK_VENUE=real',
      'VENUE_WS_URL must be set with STACK_VENUE=real',
      'VENUE_IPS_URL must be set with STACK_VENUE=real',
      'VENUE_API_KEY or VENUE_API_KEY_FILE must be set with STACK_VENUE=real',
      'VENUE_API_SECRET or VENUE_API_SECRET_FILE must be set with STACK_VENUE=real',
    ]);
    expect(problems({ ...REAL, VENUE_API_KEY: 'k', VENUE_API_SECRET: 's', VENUE_API_SECRET_FILE: '/x' })).toEqual([
      'set VENUE_API_SECRET or VENUE_API_SECRET_FILE, not both',
    ]);
  });

  it('refuses venue settings that the sandbox would silently ignore, bad URLs and clashing or zero ports', () => {
    expect(problems({ VENUE_API_KEY: 'k' })).toEqual([
      'VENUE_API_KEY is set but STACK_VENUE is sandbox: set STACK_VENUE=real to use the real venue',
    ]);
    expect(problems({ NATS_URL: 'http://x' })[0]).toMatch(/^NATS_URL must be a comma-separated list of URLs/);
    expect(problems({ SANDBOX_PORT: '3001' })).toEqual(['SANDBOX_PORT must differ from CONNECTOR_HTTP_PORT']);
    expect(problems({ CONNECTOR_HTTP_PORT: '0' })[0]).toMatch(/^CONNECTOR_HTTP_PORT must be .*from 1 to 65535/);
    expect(problems({ CONNECTOR_HTTP_PORT: '70000' })[0]).toMatch(/^CONNECTOR_HTTP_PORT must be .*from 1 to 65535/);
    expect(problems({ ACCOUNT: 'a.b' })[0]).toMatch(/^ACCOUNT must be one subject token/);
  });

  it('the real venue: a secret that is not Base64, a missing file and other problems are named in one pass (security tester)', () => {
    expect(
      problems({
        STACK_VENUE: 'real',
        VENUE_API_KEY_FILE: join(dir, 'absent-key'),
        VENUE_API_SECRET: '!!!not base64',
        CONNECTOR_HTTP_PORT: '70000',
      }),
    ).toEqual([
      expect.stringMatching(/^CONNECTOR_HTTP_PORT /),
      'VENUE_REST_URL must be set with STACK_VENUE=real',
      'VENUE_WS_URL must be set with STACK_VENUE=real',
      'VENUE_IPS_URL must be set with STACK_VENUE=real',
      'VENUE_API_KEY_FILE must name a readable file',
      'VENUE_API_SECRET must hold a non-empty secret, Base64 with VENUE_SIGNATURE_ENCODING=base64',
    ]);
    expect(problems({ ...REAL, VENUE_API_KEY: 'k', VENUE_API_SECRET: '!!!not base64' }).join('\n')).not.toContain(
      '!!!',
    );
  });

  it('key and secret from files; an unreadable file or an unusable secret is refused by name, never shown', async () => {
    const key = join(dir, 'key');
    const secret = join(dir, 'secret');
    await writeFile(key, 'my-key\n');
    await writeFile(secret, `${Buffer.from('s3cret-bytes').toString('base64')}\n`);
    const good = await realVenueWiring(
      loadConfig(StackConfig, { ...REAL, VENUE_API_KEY_FILE: key, VENUE_API_SECRET_FILE: secret }),
    );
    expect(good.problems).toEqual([]);
    expect(good.wiring).toMatchObject({ apiKey: 'my-key', apiSecret: Buffer.from('s3cret-bytes').toString('base64') });

    expect(problems({ ...REAL, VENUE_API_KEY: 'k', VENUE_API_SECRET_FILE: join(dir, 'nope') })).toEqual([
      'VENUE_API_SECRET_FILE must name a readable file',
    ]);
    await writeFile(join(dir, 'empty'), '\n');
    expect(problems({ ...REAL, VENUE_API_KEY_FILE: join(dir, 'empty'), VENUE_API_SECRET: 'czM=' })).toEqual([
      'VENUE_API_KEY_FILE names an empty file',
    ]);
    const bad = problems({ ...REAL, VENUE_API_KEY: 'k', VENUE_API_SECRET: '!!!' });
    expect(bad).toEqual(['VENUE_API_SECRET must hold a non-empty secret, Base64 with VENUE_SIGNATURE_ENCODING=base64']);
    expect(JSON.stringify(bad)).not.toContain('!!!');
  });

  // outside tester: VENUE_API_SECRET_FILE=/dev/zero hung the launcher at its configuration, reading without end
  it('the real venue: a key or secret file that is not a regular file is refused by name, not read', () => {
    expect(problems({ ...REAL, VENUE_API_KEY: 'k', VENUE_API_SECRET_FILE: '/dev/zero' })).toEqual([
      'VENUE_API_SECRET_FILE must name a regular file of at most 65536 bytes',
    ]);
    expect(problems({ ...REAL, VENUE_API_KEY_FILE: dir, VENUE_API_SECRET: 'czM=' })).toEqual([
      'VENUE_API_KEY_FILE must name a regular file of at most 65536 bytes',
    ]);
  });

  // outside tester: a data folder that is a file failed after the configuration with `EEXIST … mkdir` and a stack
  // trace, the setting not named
  it('a data folder that is a file, or under one, is refused by name', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const refused = 'STACK_DATA_DIR must be a directory, or a path where one can be made (a file is in the way)';
    expect(problems({ STACK_DATA_DIR: file })).toEqual([refused]);
    expect(problems({ STACK_DATA_DIR: join(file, 'data') })).toEqual([refused]);
    expect(problems({ STACK_DATA_DIR: join(dir, 'not-yet', 'data') })).toEqual([]);
    expect(problems({ STACK_DATA_DIR: dir })).toEqual([]);
  });

  // outside tester: a key that cannot be a Rest-Key header (a line break, a space) started the stack, and the
  // connector then backed off forever on "connection failed (other)"
  it('the real venue: a key that cannot travel as a header is refused by name, from the variable or its file', async () => {
    const twoLines = join(dir, 'two-line-key');
    await writeFile(twoLines, 'my\nkey\n');
    expect(problems({ ...REAL, VENUE_API_KEY: 'my key', VENUE_API_SECRET: 'czM=' })).toEqual([
      'VENUE_API_KEY must be 1 to 256 visible ASCII characters (no spaces or control characters: it is sent as a header)',
    ]);
    expect(problems({ ...REAL, VENUE_API_KEY_FILE: twoLines, VENUE_API_SECRET: 'czM=' })).toEqual([
      'VENUE_API_KEY_FILE must hold 1 to 256 visible ASCII characters (no spaces or control characters: it is sent as a header)',
    ]);
  });
});

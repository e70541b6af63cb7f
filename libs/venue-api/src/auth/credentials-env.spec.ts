import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceEnv } from '#observability';
import { configProblems } from '#testing';
import { withVenueAntiReplayEnv, withVenueCredentialsEnv } from './credentials-env.js';

class CredentialsOnly extends withVenueCredentialsEnv(ServiceEnv) {
  override HTTP_PORT: number = 0;
}

const valid = {
  VENUE_REST_URL: 'http://127.0.0.1:8080',
  VENUE_API_KEY: 'sbx-key-primary-0001',
  VENUE_API_SECRET: 'c2VjcmV0',
};

describe('venue credentials settings', () => {
  it('accepts a key of visible characters', () => {
    expect(configProblems(CredentialsOnly, valid)).toEqual([]);
  });

  // outside tester: a key with a line break started the connector, which then reported "connection failed
  // (other)" on every token fetch, backing off forever (the key cannot be a Rest-Key header value)
  it.each([
    ['a line break', 'sbx-key\nprimary'],
    ['a carriage return', 'sbx-key\r'],
    ['only a space', ' '],
    ['a space around it', ' sbx-key '],
    ['a tab inside', 'sbx\tkey'],
    ['a character outside ASCII', 'sbx-kéy'],
  ])('refuses a key with %s by name, never printing it', (_case, key) => {
    const problems = configProblems(CredentialsOnly, { ...valid, VENUE_API_KEY: key });
    expect(problems).toEqual([
      'VENUE_API_KEY must be 1 to 256 visible ASCII characters (no spaces or control characters: it is sent as a header)',
    ]);
  });
});

class WithNonce extends withVenueAntiReplayEnv(withVenueCredentialsEnv(ServiceEnv)) {
  override HTTP_PORT: number = 0;
}

describe('nonce directory setting', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-nonce-dir-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // outside tester: VENUE_NONCE_DIR naming a file started the connector, which then failed every token fetch with
  // "EEXIST … mkdir" and backed off forever
  it('refuses a nonce directory that is a file, or under one, by name; accepts one that exists or can be made', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const nonce = { ...valid, VENUE_ANTI_REPLAY: 'nonce' };
    const refused = 'VENUE_NONCE_DIR must be a directory this process can write, or a path where one can be made';
    expect(configProblems(WithNonce, { ...nonce, VENUE_NONCE_DIR: file })).toEqual([refused]);
    expect(configProblems(WithNonce, { ...nonce, VENUE_NONCE_DIR: join(file, 'nonces') })).toEqual([refused]);
    expect(configProblems(WithNonce, { ...nonce, VENUE_NONCE_DIR: dir })).toEqual([]);
    expect(configProblems(WithNonce, { ...nonce, VENUE_NONCE_DIR: join(dir, 'later', 'nonces') })).toEqual([]);
  });
});

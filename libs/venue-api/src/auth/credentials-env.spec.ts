import { describe, expect, it } from '@jest/globals';
import { ServiceEnv } from '#observability';
import { configProblems } from '#testing';
import { withVenueCredentialsEnv } from './credentials-env.js';

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

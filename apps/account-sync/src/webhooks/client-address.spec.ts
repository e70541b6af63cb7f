import { describe, expect, it } from '@jest/globals';
import { CidrSet } from './cidr-set.js';
import { clientAddress } from './client-address.js';

const proxies = CidrSet.parse(['10.0.0.0/8']).set;

describe('clientAddress', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('198.51.100.1', '203.0.113.5', CidrSet.empty())).toBe('198.51.100.1');
  });

  it('is the peer when the peer is not a trusted proxy', () => {
    expect(clientAddress('198.51.100.1', '203.0.113.5', proxies)).toBe('198.51.100.1');
  });

  it('behind a trusted proxy, is the right-most forwarded address that is not a trusted proxy', () => {
    expect(clientAddress('10.0.0.2', '1.1.1.1, 203.0.113.5, 10.0.0.9', proxies)).toBe('203.0.113.5');
    expect(clientAddress('10.0.0.2', ['1.1.1.1', '203.0.113.5'], proxies)).toBe('203.0.113.5');
  });

  it('reads a forwarded hop written with its port (IPv4 and bracketed IPv6) as its address', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.5:1234, 10.0.0.9:80', proxies)).toBe('203.0.113.5');
    expect(clientAddress('10.0.0.2', '[2001:db8::1]:443', proxies)).toBe('2001:db8::1');
    expect(clientAddress('10.0.0.2', '2001:db8::1', proxies)).toBe('2001:db8::1');
  });

  it('behind a trusted proxy with no forwarded header, is the proxy itself', () => {
    expect(clientAddress('10.0.0.2', undefined, proxies)).toBe('10.0.0.2');
  });
});

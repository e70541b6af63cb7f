import { describe, expect, it } from '@jest/globals';
import { CidrSet } from './cidr-set.js';

describe('CidrSet', () => {
  it('matches addresses inside a block and a single /32', () => {
    const { set, invalid } = CidrSet.parse(['203.0.113.0/24', '198.51.100.7/32']);
    expect(invalid).toEqual([]);
    expect(set.contains('203.0.113.200')).toBe(true);
    expect(set.contains('198.51.100.7')).toBe(true);
    expect(set.contains('198.51.100.8')).toBe(false);
    expect(set.contains('10.0.0.1')).toBe(false);
  });

  it('reads an IPv4-mapped IPv6 peer (a dual-stack socket) as its IPv4 address', () => {
    const { set } = CidrSet.parse(['127.0.0.1/32']);
    expect(set.contains('::ffff:127.0.0.1')).toBe(true);
    expect(set.contains('127.0.0.1')).toBe(true);
    expect(set.contains('::1')).toBe(false);
  });

  it('matches IPv6 blocks, and bare addresses as single-address blocks', () => {
    const { set } = CidrSet.parse(['2001:db8::/32', '192.0.2.1']);
    expect(set.contains('2001:db8:1::5')).toBe(true);
    expect(set.contains('192.0.2.1')).toBe(true);
    expect(set.contains('192.0.2.2')).toBe(false);
  });

  it('lists entries that are not blocks (bounded) and refuses garbage addresses', () => {
    const { set, invalid } = CidrSet.parse(['not-an-ip', '300.1.1.1/24', '10.0.0.0/8', `${'x'.repeat(500)}`]);
    expect(set.size).toBe(1);
    expect(invalid).toHaveLength(3);
    expect(invalid.every((entry) => entry.length <= 64)).toBe(true);
    expect(set.contains('')).toBe(false);
    expect(set.contains('garbage')).toBe(false);
  });

  it('takes IPv4 only in four-part decimal: an octal-looking or short entry is invalid, never another block', () => {
    const { set, invalid } = CidrSet.parse(['010.0.0.0/8', '1', '0x7f.1', '10.0.0.0/8', '192.0.2.1']);
    expect(invalid).toEqual(['010.0.0.0/8', '1', '0x7f.1']);
    expect(set.size).toBe(2);
    expect(set.contains('8.1.1.1')).toBe(false);
    expect(set.contains('10.1.1.1')).toBe(true);
    expect(set.contains('192.0.2.1')).toBe(true);
  });

  it('an empty set contains nothing', () => {
    expect(CidrSet.empty().contains('127.0.0.1')).toBe(false);
  });
});

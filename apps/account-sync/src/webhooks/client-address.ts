/**
 * The address a webhook came from. The socket's peer, unless the peer is a configured trusted proxy: then
 * the right-most address of `X-Forwarded-For` that is not itself a trusted proxy (the left-most entries are
 * whatever the sender wrote, never trusted). Without trusted proxies the header is ignored.
 */
import type { CidrSet } from './cidr-set.js';

const MAX_FORWARDED_HOPS = 32;

export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: CidrSet): string {
  if (forwardedFor === undefined || trusted.size === 0 || !trusted.contains(peer)) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const hops = header
    .split(',')
    .slice(-MAX_FORWARDED_HOPS)
    .map((hop) => withoutPort(hop.trim()))
    .filter((hop) => hop !== '');
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index] as string;
    if (!trusted.contains(hop)) return hop;
  }
  return hops[0] ?? peer;
}

/** Some proxies write a hop with its port: `203.0.113.5:1234`, `[2001:db8::1]:443` — the address is matched. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed !== null) return bracketed[1] as string;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4WithPort !== null ? (v4WithPort[1] as string) : hop;
}

/**
 * A set of address blocks (CIDR, `/32` one address; IPv4 and IPv6), matched with ipaddr.js. An IPv4-mapped
 * IPv6 peer (`::ffff:1.2.3.4`, how Node reports IPv4 on a dual-stack socket) is matched as its IPv4 address.
 */
import ipaddr from 'ipaddr.js';

type Block = [ipaddr.IPv4 | ipaddr.IPv6, number];

export class CidrSet {
  private readonly blocks: Block[];
  /** Answers per address text (a webhook sender uses a handful of addresses); bounded. */
  private readonly answers = new Map<string, boolean>();

  private constructor(blocks: Block[]) {
    this.blocks = blocks;
  }

  static empty(): CidrSet {
    return new CidrSet([]);
  }

  /** The blocks, and every entry that is not a CIDR block (a bare address reads as /32 or /128). */
  static parse(entries: readonly string[]): { set: CidrSet; invalid: string[] } {
    const blocks: Block[] = [];
    const invalid: string[] = [];
    for (const entry of entries) {
      const text = entry.trim();
      try {
        if (!isStrictAddressText(text)) {
          invalid.push(text.slice(0, 64));
        } else if (ipaddr.isValidCIDR(text)) {
          blocks.push(normalise(ipaddr.parseCIDR(text)));
        } else if (ipaddr.isValid(text)) {
          const address = ipaddr.process(text);
          blocks.push([address, address.kind() === 'ipv4' ? 32 : 128]);
        } else {
          invalid.push(text.slice(0, 64));
        }
      } catch {
        invalid.push(text.slice(0, 64));
      }
    }
    return { set: new CidrSet(blocks), invalid };
  }

  get size(): number {
    return this.blocks.length;
  }

  contains(address: string): boolean {
    const known = this.answers.get(address);
    if (known !== undefined) return known;
    const answer = this.match(address);
    if (this.answers.size >= 1_024) this.answers.clear();
    this.answers.set(address, answer);
    return answer;
  }

  private match(address: string): boolean {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address.replace(/%.*$/, ''));
    } catch {
      return false;
    }
    for (const [network, bits] of this.blocks) {
      if (network.kind() === parsed.kind() && parsed.match(network, bits)) return true;
    }
    return false;
  }
}

/** An IPv4-mapped IPv6 block (`::ffff:10.0.0.0/104`) becomes the IPv4 block it means. */
function normalise([network, bits]: Block): Block {
  if (network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(network as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [network, bits];
}

/** How many entries of a comma-separated CIDR list are not blocks (config validation). */
export function cidrListProblems(list: string): number {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return CidrSet.parse(entries).invalid.length;
}

/**
 * IPv4 only as four decimal parts without leading zeros (ipaddr.js would also read `010.0.0.0` as octal 8.0.0.0,
 * `1` as 0.0.0.1); IPv6 as ipaddr.js reads it. A block's prefix length: decimal digits.
 */
function isStrictAddressText(text: string): boolean {
  const [address = '', bits, extra] = text.split('/');
  if (extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return false;
  return address.includes(':') ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address);
}

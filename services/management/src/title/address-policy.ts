import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Test-only: tests serve their pages on 127.0.0.1. */
  allowLoopback: boolean;
}

/**
 * Only globally routable unicast addresses may be fetched. ipaddr.js names every special range
 * (private, loopback, link-local, unspecified, multicast, broadcast, CGNAT, IPv6 ULA, reserved,
 * and the IPv6 ranges that embed IPv4 such as 6to4, Teredo and NAT64); anything it does not call
 * 'unicast' is refused, so a new special range is refused by default. IPv4-mapped IPv6 is judged
 * as the IPv4 address it carries. The deprecated IPv4-compatible range ::/96 (`::7f00:1` is
 * 127.0.0.1 to some stacks) is one ipaddr.js calls 'unicast', so it is refused here by name.
 */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  const family = isIP(address);
  if (!family) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(family === 6 ? canonicalIpv6(address) : address);
  } catch {
    return false;
  }
  const range = parsed.range();
  if (range === 'loopback') return policy.allowLoopback;
  return range === 'unicast' && !(parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6));
}

/**
 * The WHATWG form (hex groups only). ipaddr.js reads a dotted tail such as `::8.8.8.8` as the
 * mapped `::ffff:8.8.8.8`, while the socket connects to the IPv4-compatible `::808:808`.
 */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** ::/96: the first 96 bits are zero (:: and ::1 lie in it too, but have their own ranges). */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

/** The TCP port a URL connects to: its explicit port, else the scheme's default. */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The IP of a URL host that is an address literal ("[::1]" -> "::1"), else undefined (a name to resolve). */
export function addressLiteralOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

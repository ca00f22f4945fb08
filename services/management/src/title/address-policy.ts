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
 * as the IPv4 address it carries.
 */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  if (!isIP(address)) return false;
  let range: string;
  try {
    range = ipaddr.process(address).range();
  } catch {
    return false;
  }
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

/** The IP of a URL host that is an address literal ("[::1]" -> "::1"), else undefined (a name to resolve). */
export function addressLiteralOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

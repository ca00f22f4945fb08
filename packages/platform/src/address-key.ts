import { isIP } from 'node:net';

/** The key of every address that is not one (a broken proxy, a closed socket): they share one bucket. */
export const INVALID_ADDRESS_KEY = 'invalid';

const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * The rate-limit key of a client address. IPv4: the address. IPv6: its /64, because one host
 * (a home line, a cloud VM) commonly holds a whole /64 and would get a fresh bucket per address;
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`, what a dual-stack socket reports) counts as the IPv4 address.
 * Zone ids, brackets and ports are dropped. Anything else is INVALID_ADDRESS_KEY.
 */
export function addressKey(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return ipv6Key(address);
  const unwrapped = unwrapAddress(address);
  if (unwrapped === undefined) return INVALID_ADDRESS_KEY;
  const again = isIP(unwrapped);
  if (again === 4) return unwrapped;
  return again === 6 ? ipv6Key(unwrapped) : INVALID_ADDRESS_KEY;
}

/**
 * The address inside what a proxy wrote around it (brackets, a port, a zone id), or undefined when
 * there was nothing to drop. Not validated: the caller checks the result with isIP.
 */
export function unwrapAddress(address: string): string | undefined {
  const text = address.trim();
  const bracketed = BRACKETED.exec(text)?.[1] ?? text;
  const v4 = IPV4_WITH_PORT.exec(bracketed)?.[1] ?? bracketed;
  const zone = v4.indexOf('%');
  const bare = zone === -1 ? v4 : v4.slice(0, zone);
  return bare === address ? undefined : bare;
}

function ipv6Key(address: string): string {
  const zone = address.indexOf('%');
  const groups = ipv6Groups(zone === -1 ? address : address.slice(0, zone));
  if (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  ) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an address isIP already accepted as IPv6 (so the syntax is valid). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dot = text.indexOf('.');
  if (dot !== -1) {
    // a trailing dotted quad is the last two groups
    const colon = text.lastIndexOf(':');
    const [a, b, c, d] = text
      .slice(colon + 1)
      .split('.')
      .map(Number) as [number, number, number, number];
    text = `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const gap = text.indexOf('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  if (gap === -1) return parse(text);
  const head = parse(text.slice(0, gap));
  const tail = parse(text.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

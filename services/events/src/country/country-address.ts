import { isIP } from 'node:net';
import { unwrapAddress } from '@cm/platform';

/**
 * The address to look a country up for, or undefined when it has none: not an address, or one that
 * belongs to no place (private, loopback, link-local, CGNAT, unspecified, multicast, reserved).
 * Such an address at the ingest means the client is on a private network with us, or (far more
 * often) that PIXEL_TRUSTED_PROXY_HOPS does not match the proxies and the address is a proxy's;
 * either way its country is unknown, whatever a database says about the range.
 *
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how Node reports IPv4 peers on a dual-stack
 * socket) is looked up as its IPv4 address: country databases keep IPv4 at `::/96` only, so the
 * mapped form would find nothing. Brackets, ports and zone ids are dropped, as the flood limits do.
 * Documentation ranges pass: the database decides (no real one lists them, test ones do).
 */
export function lookupAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return isPlaceIPv4(address) ? address : undefined;
  if (family === 6) return placeIPv6(address);
  const bare = unwrapAddress(address);
  if (bare === undefined) return undefined;
  const again = isIP(bare);
  if (again === 4) return isPlaceIPv4(bare) ? bare : undefined;
  return again === 6 ? placeIPv6(bare) : undefined;
}

const DOT = 46;
const COLON = 58;

/** `address` is a valid dotted quad (isIP said so): only its first two octets decide. */
function isPlaceIPv4(address: string): boolean {
  let i = 0;
  let a = 0;
  let b = 0;
  for (let c = address.charCodeAt(i); c !== DOT; c = address.charCodeAt(++i)) a = a * 10 + c - 48;
  for (let c = address.charCodeAt(++i); c !== DOT; c = address.charCodeAt(++i)) b = b * 10 + c - 48;
  // 0/8 unspecified, 10/8 private, 127/8 loopback, 224/4 multicast and 240/4 reserved (with broadcast)
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  // link-local, private, private, shared address space (carrier-grade NAT)
  return !(
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

/** `address` is valid IPv6 (isIP said so), maybe with a zone id. */
function placeIPv6(address: string): string | undefined {
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  let first = 0;
  for (let i = 0, c = bare.charCodeAt(0); c !== COLON; c = bare.charCodeAt(++i)) first = first * 16 + hexValue(c);
  // ::/16 holds unspecified, loopback, IPv4-compatible and IPv4-mapped addresses: only the last have a place
  if (first === 0) return mappedIPv4(bare);
  // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast
  if ((first & 0xfe00) === 0xfc00 || first >= 0xfe80) return undefined;
  return bare;
}

function hexValue(c: number): number {
  if (c <= 57) return c - 48; // 0-9
  return (c | 0x20) - 87; // a-f, A-F
}

const IPV4_MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

const isF = (c: number): boolean => (c | 0x20) === 102;

function mappedIPv4(address: string): string | undefined {
  // the form Node reports ("::ffff:" then a dotted quad), recognised without building strings
  if (
    address.charCodeAt(1) === COLON &&
    isF(address.charCodeAt(2)) &&
    isF(address.charCodeAt(3)) &&
    isF(address.charCodeAt(4)) &&
    isF(address.charCodeAt(5)) &&
    address.charCodeAt(6) === COLON
  ) {
    const v4 = address.slice(7);
    if (isIP(v4) === 4) return isPlaceIPv4(v4) ? v4 : undefined;
  }
  // any other spelling (`0:0:0:0:0:ffff:c000:201`, `::FFFF:C000:0201`): the URL parser writes IPv6 canonically
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const groups = IPV4_MAPPED.exec(canonical);
  if (groups === null) return undefined;
  const high = parseInt(groups[1]!, 16);
  const low = parseInt(groups[2]!, 16);
  const v4 = `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  return isPlaceIPv4(v4) ? v4 : undefined;
}

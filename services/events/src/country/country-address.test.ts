import { lookupAddress } from './country-address';

describe('the address a country is looked up for', () => {
  test.each([
    ['a public IPv4 address', '198.51.100.23', '198.51.100.23'],
    ['an IPv4 address as a dual-stack socket reports it', '::ffff:198.51.100.23', '198.51.100.23'],
    ['the same in upper case', '::FFFF:198.51.100.23', '198.51.100.23'],
    ['an IPv4-mapped address in hex groups', '::ffff:c633:6417', '198.51.100.23'],
    ['an IPv4-mapped address written out in full', '0:0:0:0:0:ffff:c633:6417', '198.51.100.23'],
    ['a public IPv6 address', '2001:db8:1::7', '2001:db8:1::7'],
    ['an IPv6 address in upper case', '2A00:1450:4001:81B::200E', '2A00:1450:4001:81B::200E'],
    ['IPv4 with a port (some load balancers append one)', '203.0.113.9:51234', '203.0.113.9'],
    ['bracketed IPv6 with a port', '[2001:db8:1::7]:443', '2001:db8:1::7'],
    ['a global IPv6 address with a zone id', '2001:db8:1::7%eth0', '2001:db8:1::7'],
    ['the last address before the private 172.16/12', '172.15.255.255', '172.15.255.255'],
    ['the first address after it', '172.32.0.1', '172.32.0.1'],
    ['the edge of the shared address space', '100.128.0.1', '100.128.0.1'],
    ['a NAT64 address (the database decides)', '64:ff9b::c633:6417', '64:ff9b::c633:6417'],
  ])('when the client is %s, then it is looked up as itself or its IPv4 form', (_what, address, expected) => {
    expect(lookupAddress(address)).toBe(expected);
  });

  test.each([
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 172.16/12, its end', '172.31.255.254'],
    ['private 192.168/16', '192.168.1.20'],
    ['loopback', '127.0.0.1'],
    ['loopback at the end of 127/8', '127.255.255.254'],
    ['link-local', '169.254.10.20'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['carrier-grade NAT, its end', '100.127.255.254'],
    ['unspecified', '0.0.0.0'],
    ['multicast', '224.0.0.251'],
    ['reserved', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['private, IPv4-mapped', '::ffff:10.0.0.1'],
    ['loopback, IPv4-mapped', '::ffff:127.0.0.1'],
    ['private, IPv4-mapped in hex groups', '::ffff:a00:1'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv4-compatible (deprecated)', '::198.51.100.23'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 link-local with a zone id', 'fe80::1ff:fe23:4567:890a%eth0'],
    ['IPv6 unique local', 'fd12:3456:789a::1'],
    ['IPv6 unique local, fc00::/8', 'fc00::1'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv6 multicast', 'ff02::fb'],
    ['a proxy that wrote "unknown"', 'unknown'],
    ['nothing', ''],
    ['three octets', '198.51.100'],
    ['an octet out of range', '198.51.100.256'],
    ['a host name', 'proxy.internal.example'],
    ['a $ operator', '{"$gt":""}'],
    ['a mapped address with a bad IPv4 part', '::ffff:999.1.1.1'],
    ['an oversized header entry', `${'1'.repeat(64)}`],
  ])('when the client address is %s, then it has no country', (_what, address) => {
    expect(lookupAddress(address)).toBeUndefined();
  });
});

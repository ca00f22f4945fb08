import { INVALID_ADDRESS_KEY, addressKey } from './address-key';

describe('addressKey', () => {
  test.each([
    ['IPv4', '203.0.113.7', '203.0.113.7'],
    ['IPv4 with a port', '203.0.113.7:51234', '203.0.113.7'],
    ['IPv6, compressed', '2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['IPv6, fully expanded with leading zeros', '2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['IPv6, upper case', '2001:DB8:1:2:AAAA:BBBB:CCCC:DDDD', '2001:db8:1:2::/64'],
    ['IPv6 compressed inside the prefix', '2001:db8::1:2:3:4', '2001:db8:0:0::/64'],
    ['IPv6 with a zone id', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['IPv6 in brackets with a port', '[2001:db8:1:2::9]:443', '2001:db8:1:2::/64'],
    ['IPv6 loopback', '::1', '0:0:0:0::/64'],
    ['IPv6 with a trailing dotted quad', '64:ff9b:1:2::198.51.100.1', '64:ff9b:1:2::/64'],
    ['IPv4-mapped IPv6', '::ffff:203.0.113.7', '203.0.113.7'],
    ['IPv4-mapped IPv6 in hex', '::ffff:cb00:7107', '203.0.113.7'],
    ['IPv4-mapped IPv6, expanded', '0:0:0:0:0:FFFF:203.0.113.7', '203.0.113.7'],
  ])('when the address is %s, then the key is its address or /64', (_what, address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  test('when two addresses share a /64, then they share a key; a neighbouring /64 does not', () => {
    expect(addressKey('2001:db8:a:b::1')).toBe(addressKey('2001:db8:a:b:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:a:b::1')).not.toBe(addressKey('2001:db8:a:c::1'));
  });

  test.each([
    [''],
    ['unknown'],
    ['203.0.113'],
    ['203.0.113.256'],
    ['2001:db8::1::2'],
    ['2001:db8:1:2:3:4:5:6:7'],
    ['[2001:db8::1'],
    ['1.2.3.4, 5.6.7.8'],
    ['gggg::1'],
    ['%eth0'],
    ['::ffff:1.2.3.4.5'],
  ])('when the address is junk (%j), then the one shared invalid key', (address) => {
    expect(addressKey(address)).toBe(INVALID_ADDRESS_KEY);
  });
});

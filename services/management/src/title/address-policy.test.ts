import { addressLiteralOf, isAllowedAddress, portOf } from './address-policy';

const strict = { allowLoopback: false };
const testing = { allowLoopback: true };

describe('isAllowedAddress', () => {
  test.each(['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    'when %s is public unicast, then it is allowed',
    (a) => {
      expect(isAllowedAddress(a, strict)).toBe(true);
    },
  );

  test.each([
    ['loopback', '127.0.0.1'],
    ['loopback', '127.8.9.10'],
    ['loopback v6', '::1'],
    ['mapped loopback', '::ffff:127.0.0.1'],
    ['private', '10.0.0.1'],
    ['private', '172.16.5.4'],
    ['private', '192.168.1.1'],
    ['mapped private', '::ffff:10.0.0.1'],
    ['link-local', '169.254.169.254'],
    ['link-local v6', 'fe80::1'],
    ['unspecified', '0.0.0.0'],
    ['unspecified v6', '::'],
    ['multicast', '224.0.0.1'],
    ['multicast v6', 'ff02::1'],
    ['broadcast', '255.255.255.255'],
    ['CGNAT', '100.64.0.1'],
    ['ULA', 'fd12:3456::1'],
    ['reserved', '240.0.0.1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['6to4', '2002:7f00:1::'],
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible public', '::808:808'],
    ['IPv4-compatible private', '::a00:1'],
    ['::/96', '::2'],
    ['IPv4-compatible, dotted', '::8.8.8.8'],
    ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
    ['not an address', 'example.com'],
    ['empty', ''],
  ])('when the address is %s (%s), then it is refused', (_kind, a) => {
    expect(isAllowedAddress(a, strict)).toBe(false);
  });

  test('when loopback is allowed for tests, then only loopback is added', () => {
    expect(isAllowedAddress('127.0.0.1', testing)).toBe(true);
    expect(isAllowedAddress('::1', testing)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', testing)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', testing)).toBe(false);
  });
});

describe('addressLiteralOf', () => {
  test('when the host is an address literal, then the bare address is returned, else undefined', () => {
    expect(addressLiteralOf('127.0.0.1')).toBe('127.0.0.1');
    expect(addressLiteralOf('[::1]')).toBe('::1');
    expect(addressLiteralOf('example.com')).toBeUndefined();
  });
});

describe('portOf', () => {
  test.each([
    ['http://example.com/', 80],
    ['https://example.com/', 443],
    ['http://example.com:8080/', 8080],
    ['https://example.com:443/', 443],
  ])('when the URL is %s, then the connection goes to port %i', (url, port) => {
    expect(portOf(new URL(url))).toBe(port);
  });
});

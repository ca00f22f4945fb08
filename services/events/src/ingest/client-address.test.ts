import type http from 'node:http';
import { INVALID_ADDRESS_KEY } from '@cm/platform';
import { clientAddress, clientKey } from './client-address';

const request = (peer: string, xff?: string | string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  }) as unknown as http.IncomingMessage;

describe('client address for rate limits', () => {
  test.each([
    ['no trusted proxy: the peer, whatever the header claims', '10.0.0.9', '6.6.6.6', 0, '10.0.0.9'],
    ['one trusted proxy: the address it appended', '10.0.0.9', '203.0.113.7', 1, '203.0.113.7'],
    [
      'one trusted proxy and a forged entry to its left: the forged one is ignored',
      '10.0.0.9',
      '6.6.6.6, 203.0.113.7',
      1,
      '203.0.113.7',
    ],
    [
      'two trusted proxies: the entry two from the right',
      '10.0.0.9',
      '6.6.6.6, 203.0.113.7, 10.0.0.5',
      2,
      '203.0.113.7',
    ],
    ['fewer entries than hops: the leftmost', '10.0.0.9', '203.0.113.7', 3, '203.0.113.7'],
    ['a trusted proxy but no header: the peer', '10.0.0.9', undefined, 1, '10.0.0.9'],
    ['an empty entry: the peer', '10.0.0.9', '203.0.113.7, ', 1, '10.0.0.9'],
  ])('when %s', (_what, peer, xff, hops, expected) => {
    expect(clientAddress(request(peer as string, xff as string | undefined), hops as number)).toBe(expected);
  });
});

describe('client key for rate limits', () => {
  test('when the trusted proxy appended an IPv6 address, then the key is its /64 and never the raw address', () => {
    expect(clientKey(request('10.0.0.9', '6.6.6.6, 2001:db8:1:2::abcd'), 1)).toBe('2001:db8:1:2::/64');
  });

  test('when no proxy is trusted, then a dual-stack peer in IPv4-mapped form is keyed as IPv4 whatever the header says', () => {
    expect(clientKey(request('::ffff:203.0.113.7', '2001:db8::1'), 0)).toBe('203.0.113.7');
  });

  test('when the trusted entry is junk, then it falls into the one shared invalid bucket', () => {
    expect(clientKey(request('10.0.0.9', 'unknown'), 1)).toBe(INVALID_ADDRESS_KEY);
  });
});

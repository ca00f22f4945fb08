import type http from 'node:http';
import { clientAddress } from './client-address';

const request = (peer: string, xff?: string | string[]) => ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as http.IncomingMessage;

describe('client address for rate limits', () => {
  test.each([
    ['no trusted proxy: the peer, whatever the header claims', '10.0.0.9', '6.6.6.6', 0, '10.0.0.9'],
    ['one trusted proxy: the address it appended', '10.0.0.9', '203.0.113.7', 1, '203.0.113.7'],
    ['one trusted proxy and a forged entry to its left: the forged one is ignored', '10.0.0.9', '6.6.6.6, 203.0.113.7', 1, '203.0.113.7'],
    ['two trusted proxies: the entry two from the right', '10.0.0.9', '6.6.6.6, 203.0.113.7, 10.0.0.5', 2, '203.0.113.7'],
    ['fewer entries than hops: the leftmost', '10.0.0.9', '203.0.113.7', 3, '203.0.113.7'],
    ['a trusted proxy but no header: the peer', '10.0.0.9', undefined, 1, '10.0.0.9'],
    ['an empty entry: the peer', '10.0.0.9', '203.0.113.7, ', 1, '10.0.0.9'],
  ])('when %s', (_what, peer, xff, hops, expected) => {
    expect(clientAddress(request(peer as string, xff as string | undefined), hops as number)).toBe(expected);
  });
});

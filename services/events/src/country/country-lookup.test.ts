import type http from 'node:http';
import { testCountryFile } from '../../test/support/country-fixtures';
import { clientAddress } from '../ingest/client-address';
import { CountryDatabase } from './country-database';
import { CountryLookup } from './country-lookup';
import type { CountryOutcome } from './country-metrics';

function lookup(database: CountryDatabase | undefined = new CountryDatabase(testCountryFile())) {
  const outcomes: CountryOutcome[] = [];
  return { countries: new CountryLookup(database, { looked: (o) => outcomes.push(o) }), outcomes };
}

describe('the country of a client address', () => {
  test.each([
    ['IPv4', '198.51.100.23', 'FR'],
    ['IPv6', '2001:db8:1:4a2f::17', 'DE'],
    ['IPv4-mapped IPv6 (a dual-stack socket)', '::ffff:203.0.113.9', 'JP'],
    ['IPv4-mapped IPv6 in hex groups', '::ffff:c000:20a', 'BR'],
    ['IPv6 in a GeoIP2-style record', '2001:DB8:2::1', 'CA'],
  ])('when the client is %s, then its country is found and counted as known', (_what, address, country) => {
    const { countries, outcomes } = lookup();
    expect(countries.of(address)).toBe(country);
    expect(outcomes).toEqual(['known']);
  });

  test.each([
    ['private', '10.20.30.40'],
    ['private, IPv4-mapped', '::ffff:10.20.30.40'],
    ['loopback', '127.0.0.1'],
    ['IPv6 loopback', '::1'],
    ['carrier-grade NAT', '100.64.7.1'],
    ['IPv6 unique local', 'fd00::5'],
    ['IPv6 link-local', 'fe80::1%en0'],
  ])('when the client address is %s, then the country is unknown although the database places it', (_w, address) => {
    const { countries, outcomes } = lookup();
    expect(countries.of(address)).toBeUndefined();
    expect(outcomes).toEqual(['not_public']);
  });

  test('when the database does not know the address, then the country is unknown and counted as not found', () => {
    const { countries, outcomes } = lookup();
    expect(countries.of('198.51.101.7')).toBeUndefined();
    expect(countries.of('2001:db8:99::1')).toBeUndefined();
    expect(outcomes).toEqual(['not_found', 'not_found']);
  });

  test('when there is no database (COUNTRY_DB_PATH=none), then every country is unknown', () => {
    const outcomes: CountryOutcome[] = [];
    const countries = new CountryLookup(undefined, { looked: (o) => outcomes.push(o) });
    expect(countries.of('198.51.100.23')).toBeUndefined();
    expect(outcomes).toEqual(['no_database']);
  });

  test('when a newer database replaces the one in use, then the next lookup answers from it', () => {
    const { countries } = lookup();
    expect(countries.of('198.51.100.23')).toBe('FR');
    countries.replace(new CountryDatabase(testCountryFile({ '198.51.100.0/24': { country_code: 'IT' } })));
    expect(countries.of('198.51.100.23')).toBe('IT');
  });
});

describe('the country of the client behind trusted proxies', () => {
  const request = (peer: string, xff?: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
    }) as unknown as http.IncomingMessage;
  const countryOf = (req: http.IncomingMessage, hops: number) => lookup().countries.of(clientAddress(req, hops));

  test.each([
    [
      'no proxy: the peer on a dual-stack socket, whatever the header claims',
      '::ffff:198.51.100.23',
      '203.0.113.9',
      0,
      'FR',
    ],
    ['one proxy: the address it appended', '10.0.0.9', '198.51.100.23', 1, 'FR'],
    ['one proxy and a forged entry to its left', '10.0.0.9', '203.0.113.9, 198.51.100.23', 1, 'FR'],
    ['two proxies: the entry two from the right', '10.0.0.9', '203.0.113.9, 2001:db8:1::5, 10.0.0.5', 2, 'DE'],
    ['two proxies and two forged entries', '10.0.0.9', '192.0.2.1, 203.0.113.9, 198.51.100.23, 10.0.0.5', 2, 'FR'],
  ])('when %s, then that client decides the country', (_what, peer, xff, hops, country) => {
    expect(countryOf(request(peer, xff), hops)).toBe(country);
  });

  test.each([
    ['no proxy trusted: the header is ignored and the peer is private', '10.0.0.9', '198.51.100.23', 0],
    [
      'one proxy whose client is private: the forged public entry is ignored',
      '10.0.0.9',
      '203.0.113.9, 192.168.1.20',
      1,
    ],
    [
      'two proxies in front of a loopback client: the forged entry is ignored',
      '10.0.0.9',
      '203.0.113.9, 127.0.0.1, 10.0.0.5',
      2,
    ],
  ])('when %s, then a spoofed X-Forwarded-For never chooses the country', (_what, peer, xff, hops) => {
    expect(countryOf(request(peer, xff), hops)).toBeUndefined();
  });
});

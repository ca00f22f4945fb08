import { writeMmdb, type MmdbValue } from './mmdb-writer';

/**
 * The networks of the tests' country database: documentation ranges (no real visitor is there),
 * in both record layouts a country file may use, plus ranges a careless database places although
 * they belong to no country (the lookup must not believe it).
 */
export const TEST_NETWORKS: Record<string, MmdbValue> = {
  '198.51.100.0/24': { country_code: 'FR' },
  '203.0.113.0/24': { country_code: 'JP' },
  // DB-IP's own downloads and GeoIP2-style files: country.iso_code
  '192.0.2.0/25': { country: { iso_code: 'BR', names: { en: 'Brazil', fr: 'Brésil' } }, continent: { code: 'SA' } },
  // "unknown" as some databases write it
  '192.0.2.128/25': { country_code: 'ZZ' },
  '2001:db8:1::/48': { country_code: 'DE' },
  '2001:db8:2::/48': { country: { iso_code: 'CA' } },
  // not country codes
  '2001:db8:3::/48': { country_code: 'deu' },
  '2001:db8:4::/48': { city: 'Lyon' },
  '10.0.0.0/8': { country_code: 'US' },
  '127.0.0.0/8': { country_code: 'US' },
  '100.64.0.0/10': { country_code: 'US' },
  'fd00::/8': { country_code: 'US' },
  'fe80::/10': { country_code: 'US' },
};

export const TEST_BUILD_DATE = new Date('2026-10-01T00:00:00Z');

export function testCountryFile(
  networks: Record<string, MmdbValue> = TEST_NETWORKS,
  buildEpoch = TEST_BUILD_DATE,
): Buffer {
  return writeMmdb(networks, { buildEpoch, databaseType: 'test-country' });
}

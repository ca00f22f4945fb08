import { writeMmdb } from '../../test/support/mmdb-writer';
import { TEST_BUILD_DATE, testCountryFile } from '../../test/support/country-fixtures';
import { CountryDatabase } from './country-database';

describe('a country database file', () => {
  test('when the file is a country database, then its build date is read and addresses find their country in either record layout', () => {
    const db = new CountryDatabase(testCountryFile());
    expect(db.builtAt).toEqual(TEST_BUILD_DATE);
    expect(db.country('198.51.100.23')).toBe('FR');
    expect(db.country('192.0.2.10')).toBe('BR');
    expect(db.country('2001:db8:1:ab::7')).toBe('DE');
    expect(db.country('2001:db8:2::1')).toBe('CA');
  });

  test.each([
    ['not in the file', '198.51.101.1'],
    ['given ZZ', '192.0.2.200'],
    ['given a code that is no ISO 3166-1 alpha-2 code', '2001:db8:3::1'],
    ['given a record without a country', '2001:db8:4::1'],
  ])('when an address is %s, then it has no country', (_what, address) => {
    expect(new CountryDatabase(testCountryFile()).country(address)).toBeUndefined();
  });

  test.each([
    [
      'gzip-compressed (how DB-IP ships its downloads)',
      Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]),
      /gzip-compressed: unpack it/,
    ],
    ['empty', Buffer.alloc(0), /not a MaxMind DB/],
    ['text', Buffer.from('network,country_code\n198.51.100.0/24,FR\n'), /not a MaxMind DB/],
    ['cut short', testCountryFile().subarray(0, 200), /not a MaxMind DB/],
    ['an IPv4-only file', writeMmdb({ '198.51.100.0/24': { country_code: 'FR' } }, { ipVersion: 4 }), /IPv4 only/],
    [
      'an ASN database (records without a country)',
      writeMmdb({ '8.8.8.0/24': { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' } }),
      /no country code/,
    ],
  ])('when the file is %s, then it is refused saying why', (_what, bytes, reason) => {
    expect(() => new CountryDatabase(bytes)).toThrow(reason);
  });
});

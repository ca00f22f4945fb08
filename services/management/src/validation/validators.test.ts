import Joi from 'joi';
import { canonicalCountry, countryCode, targetGeography } from './countries';
import { isIanaTimezone, timezone } from './timezones';

describe('countries', () => {
  test('when a country is named in any case or by an alternative name, then the canonical English name is returned', () => {
    expect(canonicalCountry('germany')).toBe('Germany');
    expect(canonicalCountry('United States')).toBe('United States of America');
    expect(canonicalCountry(' France ')).toBe('France');
  });

  test('when a name is not a country, then undefined', () => {
    expect(canonicalCountry('Atlantis')).toBeUndefined();
    expect(canonicalCountry('')).toBeUndefined();
    expect(countryCode('Atlantis')).toBeUndefined();
  });

  test('when a stored canonical name (or any other name of the country) is mapped, then its alpha-2 code comes back', () => {
    for (const name of ['Germany', 'United States of America', "Côte d'Ivoire", 'Korea, Republic of', 'Türkiye'])
      expect(countryCode(canonicalCountry(name)!)).toMatch(/^[A-Z]{2}$/);
    expect(countryCode('United States of America')).toBe('US');
    expect(countryCode('united kingdom')).toBe('GB');
    expect(countryCode(canonicalCountry('Germany')!)).toBe('DE');
  });

  test('when one name or a list is given, then a de-duplicated list of canonical names comes back', () => {
    expect(Joi.attempt('Germany', targetGeography)).toEqual(['Germany']);
    expect(Joi.attempt(['germany', 'Germany', 'Spain'], targetGeography)).toEqual(['Germany', 'Spain']);
    expect(() => Joi.attempt(['Germany', 'Narnia'], targetGeography)).toThrow(/country/);
    expect(() => Joi.attempt({ $ne: 1 }, targetGeography)).toThrow();
  });
});

describe('timezones', () => {
  test.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata'])(
    'when %s is given, then it is accepted',
    (tz) => {
      expect(isIanaTimezone(tz)).toBe(true);
      expect(Joi.attempt(tz, timezone)).toBe(tz);
    },
  );

  test.each(['Mars/Olympus', 'GMT+25', 'Europe/../etc', '', 'a'.repeat(65)])(
    'when %s is given, then it is refused',
    (tz) => {
      expect(() => Joi.attempt(tz, timezone)).toThrow();
    },
  );
});

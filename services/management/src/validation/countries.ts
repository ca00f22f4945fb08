import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json';
import Joi from 'joi';

countries.registerLocale(en);

/** Canonical English name and alpha-2 code by lower-cased name (official and alternative names of i18n-iso-countries). */
const byLowerName = new Map<string, { canonical: string; code: string }>();
for (const [code, names] of Object.entries(countries.getNames('en', { select: 'all' }))) {
  const canonical = countries.getName(code, 'en', { select: 'official' });
  if (!canonical) continue;
  for (const name of names) byLowerName.set(name.toLowerCase(), { canonical, code });
}

/** The canonical ISO-3166 English name, or undefined when the input is not a country name. */
export function canonicalCountry(name: string): string | undefined {
  return byLowerName.get(name.trim().toLowerCase())?.canonical;
}

/** The ISO 3166-1 alpha-2 code of a country name (what the stored canonical names map to), or undefined. */
export function countryCode(name: string): string | undefined {
  return byLowerName.get(name.trim().toLowerCase())?.code;
}

const country = Joi.string()
  .max(100)
  .custom((value: string, helpers) => canonicalCountry(value) ?? helpers.error('any.invalid'))
  .messages({ 'any.invalid': '{{#label}} must be an ISO-3166 English country name' });

/** One country name or a list of them; always returned as a de-duplicated list. */
export const targetGeography = Joi.alternatives()
  .try(Joi.array().items(country).max(250), country)
  .custom((value: string | string[]) => [...new Set(Array.isArray(value) ? value : [value])]);

import Joi from 'joi';

/**
 * A visitor's country: an ISO 3166-1 alpha-2 code in upper case (`FR`, `US`, and `XK`, the code
 * country databases use for Kosovo). Only the shape is checked, not a list of assigned codes: the
 * list changes, and the database ingest reads is what decides which codes occur.
 */
export const countrySchema = Joi.string().pattern(/^[A-Z]{2}$/);

/** The fast check of the same shape (no regular expression: it runs on every event the consumer reads). */
export function isCountryCode(v: unknown): v is string {
  if (typeof v !== 'string' || v.length !== 2) return false;
  const a = v.charCodeAt(0);
  const b = v.charCodeAt(1);
  return a >= 65 && a <= 90 && b >= 65 && b <= 90;
}

import Joi from 'joi';

/**
 * The zone of a user created without one, and of a user document without one: what "today" is in
 * for a content item's state, and the time zone of its campaigns' registry records.
 */
export const DEFAULT_TIMEZONE = 'UTC';

const zones = new Set(Intl.supportedValuesOf('timeZone'));
zones.add('UTC');

/** True for an IANA time zone name the runtime knows (including links such as Europe/Kiev). */
export function isIanaTimezone(name: string): boolean {
  if (zones.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(name);
  } catch {
    return false;
  }
}

export const timezone = Joi.string()
  .max(64)
  .custom((value: string, helpers) => (isIanaTimezone(value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be an IANA time zone name such as Europe/Berlin' });

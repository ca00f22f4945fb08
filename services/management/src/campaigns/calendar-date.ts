import Joi from 'joi';

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True only for `YYYY-mm-dd` naming a real day of the Gregorian calendar (2024-02-29 yes, 2023-02-29 no). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_SHAPE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one; UTC so no local DST shifts the day.
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A `YYYY-mm-dd` string; no other form is accepted or converted. */
export const calendarDate = Joi.string()
  .custom((value: string, helpers) => (isCalendarDate(value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a real calendar date in the form YYYY-mm-dd' });

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Today's `YYYY-mm-dd` as seen in an IANA time zone (the owner's), falling back to UTC for an unknown zone. */
export function todayIn(timezone: string, now: Date = new Date()): string {
  let fmt = formatters.get(timezone);
  if (!fmt) {
    try {
      fmt = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      return now.toISOString().slice(0, 10);
    }
    formatters.set(timezone, fmt);
  }
  const parts = Object.fromEntries(fmt.formatToParts(now).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

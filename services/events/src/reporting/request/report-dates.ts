import { DAY_MS, MINUTE_MS, SECOND_MS } from '../../storage/time-units';

/**
 * Report time bounds: the documented `YYYY-MM-DD HH:MM:SS` (UTC), or ISO 8601 (`T` separator,
 * fraction, `Z` or an offset; no offset means UTC), or a bare `YYYY-MM-DD`. A bound covers the
 * whole unit it was written in, so `created__lte: 2026-11-20 12:00:00` keeps 12:00:00.999 and
 * `created__lte: 2026-11-20` keeps the whole day.
 */
export interface ReportDate {
  /** The first millisecond the written value denotes. */
  start: Date;
  /** The last millisecond it denotes (inclusive). */
  end: Date;
  /** Set for a bare date (YYYY-MM-DD): a report's `timezone` decides which instants that day covers. */
  date?: { year: number; month: number; day: number };
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function parseReportDate(text: string): ReportDate | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const dayStart = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2026-02-30 over into March: only dates that map back are real calendar dates
  const check = new Date(dayStart);
  if (year < 1970 || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  if (h === undefined) return { start: check, end: new Date(dayStart + DAY_MS - 1), date: { year, month, day } };

  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMs = zone ? zoneOffsetMs(zone) : 0;
  if (offsetMs === undefined) return undefined;
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const start = dayStart + ((hour * 60 + minute) * 60 + second) * SECOND_MS + millis - offsetMs;
  // a written fraction is millisecond precision; whole seconds cover the entire second
  const unit = fraction ? 1 : SECOND_MS;
  return { start: new Date(start), end: new Date(start + unit - 1) };
}

function zoneOffsetMs(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes) * MINUTE_MS;
}

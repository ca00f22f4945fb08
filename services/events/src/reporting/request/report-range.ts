import { ValidationError } from '@cm/platform';
import { DAY_MS, HOUR_MS, utcDayIndex, utcDayStart } from '../../storage/time-units';
import type { TimeRange } from './report-query';

/**
 * How far past "now" an open upper bound may reach: events carry the ingesting server's clock,
 * which may run a little ahead of this one; nothing later can have been stored.
 */
export const FUTURE_SKEW_MS = HOUR_MS;

/** The first and last UTC day (start, epoch ms) that have a day bucket. */
export interface StoredDays {
  oldest: number;
  newest: number;
}

type RangeField = 'created__gte' | 'created__lte' | 'campaign';

/** The range cap (REPORT_MAX_RANGE_DAYS): a 400 naming `field` when [from, to] touches more UTC days. */
function checkRangeCap(from: number, to: number, maxRangeDays: number, field: RangeField, detail = ''): void {
  const days = utcDayIndex(new Date(to)) - utcDayIndex(new Date(from)) + 1;
  if (days > maxRangeDays) {
    throw new ValidationError('invalid body', [
      { field, message: `the range${detail} touches ${days} days; at most ${maxRangeDays} are allowed` },
    ]);
  }
}

/**
 * The range a report reads: the given bounds (bare dates already read in the report's zone),
 * within the campaign's flight when there is one (`outside`: they do not meet). The range cap
 * applies to the result: a 400 naming `created__gte` when both bounds made it too long, else
 * `campaign` (the flight did).
 */
export function reportRange(
  given: TimeRange,
  flight: { from: number; to: number } | undefined,
  maxRangeDays: number,
): { range: TimeRange; outside: boolean } {
  const { from, to } = given;
  if (from && to && from > to)
    throw new ValidationError('invalid body', [{ field: 'created__lte', message: 'must not be before created__gte' }]);
  if (!flight) {
    if (from && to) checkRangeCap(from.getTime(), to.getTime(), maxRangeDays, 'created__gte');
    return { range: { from, to }, outside: false };
  }
  const start = Math.max(from?.getTime() ?? -Infinity, flight.from);
  const end = Math.min(to?.getTime() ?? Infinity, flight.to);
  if (start > end) return { range: { from, to }, outside: true };
  if (from && to) checkRangeCap(start, end, maxRangeDays, 'created__gte', " within the campaign's flight");
  else checkRangeCap(start, end, maxRangeDays, 'campaign', " of the campaign's flight");
  return { range: { from: new Date(start), to: new Date(end) }, outside: false };
}

export interface ClampOptions {
  maxRangeDays: number;
  now: number;
}

/**
 * The closed range [from, to] (inclusive ms) a report reads, or undefined when there is nothing
 * to read. A closed range is kept as given (validated already; days kept only as rollups are read
 * too). An open one is clamped to the stored day buckets: the upper bound to the newest bucket's
 * end, and never past now plus FUTURE_SKEW_MS; the lower bound to the oldest bucket and, when it
 * was not given, to the newest maxRangeDays days up to the upper bound. Then the range cap
 * applies as for a closed range: a given created__gte too far back is a 400 naming created__lte.
 */
export function clampReportRange(
  range: TimeRange,
  stored: StoredDays | undefined,
  opts: ClampOptions,
): { from: number; to: number } | undefined {
  const givenFrom = range.from?.getTime();
  const givenTo = range.to?.getTime();
  if (givenFrom !== undefined && givenTo !== undefined) return { from: givenFrom, to: givenTo };
  if (!stored) return undefined;
  const to = Math.min(givenTo ?? Infinity, stored.newest + DAY_MS - 1, opts.now + FUTURE_SKEW_MS);
  const windowStart = utcDayStart(to) - (opts.maxRangeDays - 1) * DAY_MS;
  const from = Math.max(givenFrom ?? windowStart, stored.oldest);
  if (from > to) return undefined;
  const newest = new Date(to).toISOString().slice(0, 10);
  checkRangeCap(from, to, opts.maxRangeDays, 'created__lte', ` up to the newest stored events (${newest})`);
  return { from, to };
}

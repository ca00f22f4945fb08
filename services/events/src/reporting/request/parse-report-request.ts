import { ValidationError, validate } from '@cm/platform';
import type { ReportDate } from './report-dates';
import type { ReportQuery } from './report-query';
import { checkRangeCap } from './report-range';
import { reportBodySchema, splitCommaLists } from './report-schema';
import { timeBuckets } from './time-buckets';
import { zonedInstant } from './time-zone';

export interface ReportLimits {
  /** A closed range may touch at most this many UTC days (REPORT_MAX_RANGE_DAYS). */
  maxRangeDays: number;
  /** A series may have at most this many row times (REPORT_MAX_BUCKETS). */
  maxBuckets?: number;
}

const DEFAULT_MAX_BUCKETS = 10_000;

/** Validates a report body (400 naming each bad field) and normalises it into a ReportQuery. */
export function parseReportRequest(body: unknown, limits: ReportLimits): ReportQuery {
  // Joi silently skips an own `__proto__` key (JSON.parse makes one); it is unknown like any other
  if (body && typeof body === 'object' && Object.hasOwn(body, '__proto__')) {
    throw new ValidationError('invalid body', [{ field: '__proto__', message: 'is not an allowed field' }]);
  }
  const input = validate(reportBodySchema, splitCommaLists(body), 'body', { convert: true });
  const zone = input.timezone ?? 'UTC';
  const from = input.created__gte && zonedStart(input.created__gte, zone);
  const to = input.created__lte && zonedEnd(input.created__lte, zone);
  if (from && to) {
    if (from > to)
      throw new ValidationError('invalid body', [
        { field: 'created__lte', message: 'must not be before created__gte' },
      ]);
    checkRangeCap(from.getTime(), to.getTime(), limits.maxRangeDays, 'created__gte');
  }
  let series: ReportQuery['series'];
  if (input.interval) {
    if (!from || !to) {
      throw new ValidationError('invalid body', [
        { field: from ? 'created__lte' : 'created__gte', message: 'is required with interval' },
      ]);
    }
    const max = limits.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    series = timeBuckets(input.interval, zone, from.getTime(), to.getTime(), max);
    if (!series)
      throw new ValidationError('invalid body', [
        {
          field: 'interval',
          message: `the range has more than ${max} ${input.interval} buckets; use a longer interval or a shorter range`,
        },
      ]);
  }
  if (input.fill_zeros && !input.interval)
    throw new ValidationError('invalid body', [{ field: 'fill_zeros', message: 'needs interval' }]);
  const metrics = input.metrics ?? ['count'];
  if (input.order_by === 'uniques' && !metrics.includes('uniques'))
    throw new ValidationError('invalid body', [{ field: 'order_by', message: 'uniques needs "uniques" in metrics' }]);
  const orderField = input.order_by ?? (input.limit !== undefined || input.order ? 'value' : undefined);
  return {
    ownerId: input.owner_id,
    names: distinct(input.name),
    urls: distinct(input.url),
    contentIds: distinct(input.content_id),
    deviceTypes: distinct(input.device_type),
    groupBy: input.group_by ?? [],
    metadataKeys: input.metadata ?? [],
    metrics,
    range: { from, to },
    ...(input.interval ? { interval: input.interval, series, fillZeros: input.fill_zeros ?? false } : {}),
    ...(input.timezone ? { timeZone: zone } : {}),
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
    ...(orderField
      ? { orderBy: { field: orderField, direction: input.order ?? (orderField === 'name' ? 'asc' : 'desc') } }
      : {}),
  };
}

/** A bare date starts at midnight in the report's zone; anything with a time is an instant already. */
function zonedStart(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day)) : date.start;
}

function zonedEnd(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day + 1) - 1) : date.end;
}

function distinct<T>(values: T[] | undefined): T[] | undefined {
  return values ? [...new Set(values)] : undefined;
}

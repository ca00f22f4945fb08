import { ValidationError, validate } from '@cm/platform';
import { utcDayIndex } from './report-dates';
import type { ReportQuery } from './report-query';
import { reportBodySchema, splitCommaLists } from './report-schema';

export interface ReportLimits {
  /** A closed range may touch at most this many UTC days (REPORT_MAX_RANGE_DAYS). */
  maxRangeDays: number;
}

/** Validates a report body (400 naming each bad field) and normalises it into a ReportQuery. */
export function parseReportRequest(body: unknown, limits: ReportLimits): ReportQuery {
  // Joi silently skips an own `__proto__` key (JSON.parse makes one); it is unknown like any other
  if (body && typeof body === 'object' && Object.hasOwn(body, '__proto__')) {
    throw new ValidationError('invalid body', [{ field: '__proto__', message: 'is not an allowed field' }]);
  }
  const input = validate(reportBodySchema, splitCommaLists(body), 'body', { convert: true });
  const from = input.created__gte?.start;
  const to = input.created__lte?.end;
  if (from && to) {
    if (from > to) throw new ValidationError('invalid body', [{ field: 'created__lte', message: 'must not be before created__gte' }]);
    const days = utcDayIndex(to) - utcDayIndex(from) + 1;
    if (days > limits.maxRangeDays) {
      throw new ValidationError('invalid body', [{ field: 'created__gte', message: `the range touches ${days} days; at most ${limits.maxRangeDays} are allowed` }]);
    }
  }
  return {
    ownerId: input.owner_id,
    names: distinct(input.name),
    urls: distinct(input.url),
    contentIds: distinct(input.content_id),
    deviceTypes: distinct(input.device_type),
    groupBy: input.group_by ?? [],
    metadataKeys: input.metadata ?? [],
    range: { from, to },
  };
}

function distinct<T>(values: T[] | undefined): T[] | undefined {
  return values ? [...new Set(values)] : undefined;
}

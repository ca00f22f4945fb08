import { ValidationError } from '@cm/platform';
import { askedMetrics } from './asked-metrics';
import { campaignFlight, type CampaignScope } from './campaign-scope';
import type { ReportQuery } from './report-query';
import { reportFilters } from './report-filters';
import { reportRange } from './report-range';
import { validateReportBody, type ReportBody } from './report-schema';
import { timeBuckets, zonedEnd, zonedStart } from './zoned-time';

export interface ReportLimits {
  /** A closed range may touch at most this many UTC days (REPORT_MAX_RANGE_DAYS). */
  maxRangeDays: number;
  /** A series may have at most this many row times (REPORT_MAX_BUCKETS). */
  maxBuckets?: number;
}

const DEFAULT_MAX_BUCKETS = 10_000;

/** Validates a report body without a campaign and normalises it (existing callers: tests, tools). */
export function parseReportRequest(body: unknown, limits: ReportLimits): ReportQuery {
  return normaliseReport(validateReportBody(body), limits);
}

/**
 * A validated body as a ReportQuery (400 naming the field for what depends on more than one
 * field: the range, the series, the order, the conversion). Pure. With `campaign` (the record of
 * `body.campaign`, resolved by the caller) the url filter is the campaign's URLs within the given
 * ones, the range the given one within the flight, and the zone the campaign's unless given.
 * Each step is asked once, in the order its 400s take precedence: the range, the series, the
 * metrics, then the filters (which refuse nothing).
 */
export function normaliseReport(input: ReportBody, limits: ReportLimits, campaign?: CampaignScope): ReportQuery {
  if (input.campaign !== undefined && !campaign) throw new Error('a campaign report needs the campaign record');
  const zone = input.timezone ?? campaign?.timezone ?? 'UTC';
  const given = {
    from: input.created__gte && zonedStart(input.created__gte, zone),
    to: input.created__lte && zonedEnd(input.created__lte, zone),
  };
  const { range, outside } = reportRange(given, campaign && campaignFlight(campaign), limits.maxRangeDays);
  const { from, to } = range;
  let series: ReportQuery['series'];
  if (input.interval) {
    // a range outside the flight has no buckets; any other needs both bounds
    if (!outside && (!from || !to)) {
      throw new ValidationError('invalid body', [
        { field: from ? 'created__lte' : 'created__gte', message: 'is required with interval' },
      ]);
    }
    const max = limits.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    series = outside ? [] : timeBuckets(input.interval, zone, from!.getTime(), to!.getTime(), max);
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
  const { metrics, aggregateMetrics, orderField, conversion } = askedMetrics(input);
  const { names, filters, deviceTypes } = reportFilters(input, campaign);
  const matchesNothing = outside || filters.url?.length === 0;
  return {
    ownerId: input.owner_id,
    names,
    filters,
    deviceTypes,
    groupBy: input.group_by ?? [],
    metadataKeys: input.metadata ?? [],
    metrics,
    aggregateMetrics,
    ...(conversion ? { conversion } : {}),
    range,
    ...(input.interval ? { interval: input.interval, series, fillZeros: input.fill_zeros ?? false } : {}),
    ...(input.timezone || campaign ? { timeZone: zone } : {}),
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
    ...(orderField
      ? { orderBy: { field: orderField, direction: input.order ?? (orderField === 'name' ? 'asc' : 'desc') } }
      : {}),
    ...(input.campaign !== undefined ? { campaign: input.campaign } : {}),
    ...(matchesNothing ? { matchesNothing } : {}),
  };
}

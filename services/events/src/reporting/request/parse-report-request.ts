import { referrerHost } from '@cm/contracts';
import { ValidationError, validate } from '@cm/platform';
import type { ReportDate } from './report-dates';
import { parseMetric } from '../../metrics/registry';
import { DIMENSIONS, storedValue, type Dimension } from '../../storage/dimensions';
import { campaignFlight, campaignUrls, type CampaignScope } from './campaign-scope';
import type { AggregateMetric, Conversion, ReportQuery, TimeRange } from './report-query';
import { checkRangeCap } from './report-range';
import { refuseOwnProto, reportBodySchema, splitCommaLists, type ReportBody } from './report-schema';
import { timeBuckets } from './time-buckets';
import { zonedInstant } from './time-zone';
import { urlFilterValues } from './url-filter';

export interface ReportLimits {
  /** A closed range may touch at most this many UTC days (REPORT_MAX_RANGE_DAYS). */
  maxRangeDays: number;
  /** A series may have at most this many row times (REPORT_MAX_BUCKETS). */
  maxBuckets?: number;
}

const DEFAULT_MAX_BUCKETS = 10_000;

/** The body's shape (400 naming each bad field): no campaign, clock or limit is consulted. */
export function validateReportBody(body: unknown): ReportBody {
  refuseOwnProto(body);
  return validate(reportBodySchema, splitCommaLists(body), 'body', { convert: true });
}

/** Validates a report body without a campaign and normalises it (existing callers: tests, tools). */
export function parseReportRequest(body: unknown, limits: ReportLimits): ReportQuery {
  return normaliseReport(validateReportBody(body), limits);
}

/**
 * A validated body as a ReportQuery (400 naming the field for what depends on more than one
 * field: the range, the series, the order, the conversion). Pure. With `campaign` (the record of
 * `body.campaign`, resolved by the caller) the url filter is the campaign's URLs within the given
 * ones, the range the given one within the flight, and the zone the campaign's unless given.
 */
export function normaliseReport(input: ReportBody, limits: ReportLimits, campaign?: CampaignScope): ReportQuery {
  if (input.campaign !== undefined && !campaign) throw new Error('a campaign report needs the campaign record');
  const zone = input.timezone ?? campaign?.timezone ?? 'UTC';
  const { range, outside } = rangeOf(input, zone, limits, campaign);
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
  const metrics = input.metrics ?? ['count'];
  const orderField =
    orderFieldOf(input.order_by, metrics) ?? (input.limit !== undefined || input.order ? 'value' : undefined);
  const conversion = conversionOf(input.conversion, metrics, input.name);
  const filters = filtersOf(input);
  if (campaign) filters.url = campaignUrls(campaign, filters.url);
  const matchesNothing = outside || filters.url?.length === 0;
  return {
    ownerId: input.owner_id,
    names: distinct(input.name),
    filters,
    deviceTypes: distinct(input.device_type),
    groupBy: input.group_by ?? [],
    metadataKeys: input.metadata ?? [],
    metrics,
    aggregateMetrics: aggregateMetricsOf(metrics),
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

/**
 * The range a report reads: the given bounds (a bare date read in `zone`), within the campaign's
 * flight when there is one (`outside`: they do not meet). The range cap applies to the result.
 */
function rangeOf(
  input: ReportBody,
  zone: string,
  limits: ReportLimits,
  campaign: CampaignScope | undefined,
): { range: TimeRange; outside: boolean } {
  const from = input.created__gte && zonedStart(input.created__gte, zone);
  const to = input.created__lte && zonedEnd(input.created__lte, zone);
  if (from && to && from > to)
    throw new ValidationError('invalid body', [{ field: 'created__lte', message: 'must not be before created__gte' }]);
  if (!campaign) {
    if (from && to) checkRangeCap(from.getTime(), to.getTime(), limits.maxRangeDays, 'created__gte');
    return { range: { from, to }, outside: false };
  }
  const flight = campaignFlight(campaign);
  const start = Math.max(from?.getTime() ?? -Infinity, flight.from);
  const end = Math.min(to?.getTime() ?? Infinity, flight.to);
  if (start > end) return { range: { from, to }, outside: true };
  // both bounds given: they made the range too long; else the flight did
  if (from && to) checkRangeCap(start, end, limits.maxRangeDays, 'created__gte', " within the campaign's flight");
  else checkRangeCap(start, end, limits.maxRangeDays, 'campaign', " of the campaign's flight");
  return { range: { from: new Date(start), to: new Date(end) }, outside: false };
}

/** Each dimension's filter, as stored values. */
function filtersOf(input: Partial<Record<Dimension, string[]>>): ReportQuery['filters'] {
  const filters: ReportQuery['filters'] = {};
  for (const dimension of DIMENSIONS) {
    const values = input[dimension];
    if (!values) continue;
    if (dimension === 'url') filters.url = urlFilterValues(values);
    // a referring site is stored as its host: a URL or an upper-case host given finds it too
    else if (dimension === 'referrer') filters.referrer = distinct(values.map((v) => referrerHost(v) ?? v));
    else filters[dimension] = distinct(values.map((v) => storedValue(dimension, v)));
  }
  return filters;
}

/** The requested metrics an aggregate answers (every name was checked by the schema). */
function aggregateMetricsOf(metrics: readonly string[]): AggregateMetric[] {
  const out: AggregateMetric[] = [];
  for (const name of metrics) {
    const parsed = parseMetric(name);
    if (parsed && !('error' in parsed)) out.push(parsed);
  }
  return out;
}

/** `value`, `name`, or a requested metric other than count (whose answer is `value`). */
function orderFieldOf(orderBy: string | undefined, metrics: readonly string[]): string | undefined {
  if (orderBy === undefined || orderBy === 'value' || orderBy === 'name') return orderBy;
  if (orderBy === 'count') return 'value';
  if (metrics.includes(orderBy)) return orderBy;
  throw new ValidationError('invalid body', [
    { field: 'order_by', message: `must be value, name or one of the requested metrics; add "${orderBy}" to metrics` },
  ]);
}

/** The conversion of the `conversion_rate` metric: both or neither, and both names reported. */
function conversionOf(
  conversion: Conversion | undefined,
  metrics: readonly string[],
  names: readonly string[] | undefined,
): Conversion | undefined {
  const asked = metrics.includes('conversion_rate');
  if (asked && !conversion)
    throw new ValidationError('invalid body', [
      { field: 'conversion', message: 'is required with the conversion_rate metric: {"from": name, "to": name}' },
    ]);
  if (!conversion) return undefined;
  if (!asked)
    throw new ValidationError('invalid body', [{ field: 'conversion', message: 'needs "conversion_rate" in metrics' }]);
  if (conversion.from === conversion.to)
    throw new ValidationError('invalid body', [
      { field: 'conversion', message: 'from and to must be different names' },
    ]);
  if (names && !(names.includes(conversion.from) && names.includes(conversion.to)))
    throw new ValidationError('invalid body', [
      { field: 'name', message: 'must include both names of conversion (or be left out)' },
    ]);
  return { from: conversion.from, to: conversion.to };
}

/** A bare date starts at midnight in the report's zone; anything with a time is an instant already. */
function zonedStart(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day)) : date.start;
}

function zonedEnd(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day + 1) - 1) : date.end;
}

function distinct<T>(values: T[]): T[];
function distinct<T>(values: T[] | undefined): T[] | undefined;
function distinct<T>(values: T[] | undefined): T[] | undefined {
  return values ? [...new Set(values)] : undefined;
}

import type { DeviceType } from '@cm/contracts';
import type { MeasureMetric } from './measure-metrics';
import type { Interval, TimeBucket } from './time-buckets';

/** Fields a report may group by besides the event name. */
export type GroupField = 'content_id' | 'url';
export const GROUP_FIELDS: readonly GroupField[] = ['content_id', 'url'];

/**
 * What a report row may carry besides its group: `count` is its `value`, `uniques` its distinct
 * visitors, `conversion_rate` the share of one name in another (with `conversion`), and a measure
 * metric (measure-metrics.ts) a statistic of a numeric value, e.g. `engaged_ms_p90`.
 */
export type Metric = string;
export const NAMED_METRICS = ['count', 'uniques', 'conversion_rate'] as const;

/** Conversion rate: the count of `to` over the count of `from` in the same group and row time. */
export interface Conversion {
  from: string;
  to: string;
}

/** Inclusive bounds in milliseconds; an absent bound is open. */
export interface TimeRange {
  from?: Date;
  to?: Date;
}

/**
 * A validated, normalised report request. Filters are absent when not given (match all); a
 * present filter is a non-empty list of values (a single value is a list of one).
 */
export interface ReportQuery {
  ownerId: string;
  names?: string[];
  /** Each requested url's canonical form and the form given (events from before canonical URLs hold the latter): url-filter.ts. */
  urls?: string[];
  contentIds?: string[];
  deviceTypes?: DeviceType[];
  /** In the order requested, without duplicates. */
  groupBy: GroupField[];
  /** Metadata keys as the caller wrote them (the store escapes them, see storage/metadata-key.ts). */
  metadataKeys: string[];
  /** The metrics asked for, without duplicates (`['count']` when not given: rows as before metrics existed). */
  metrics: Metric[];
  /** The measure metrics among them, parsed, in request order. */
  measureMetrics: MeasureMetric[];
  /** With the `conversion_rate` metric: the two names it relates. */
  conversion?: Conversion;
  range: TimeRange;
  /** A time series: one row per interval bucket (with `time`), boundaries in `timeZone`. */
  interval?: Interval;
  /** IANA zone for interval boundaries and date-only bounds (UTC by default). */
  timeZone?: string;
  /** The row times of a series, computed once from the range, interval and zone. */
  series?: TimeBucket[];
  /** Series: every group gets a row in every bucket, 0 where it had no event. */
  fillZeros?: boolean;
  /** Top-N: only the first `limit` groups in `orderBy` order. */
  limit?: number;
  orderBy?: OrderBy;
}

/** `value` or a requested metric (descending by default) or `name` (then the group fields; ascending by default). */
interface OrderBy {
  field: string;
  direction: 'asc' | 'desc';
}

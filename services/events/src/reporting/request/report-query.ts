import type { DeviceType } from '@cm/contracts';
import type { ParsedMetric } from '../../metrics/aggregate';
import type { AggregateName } from '../../metrics/registry';
import type { Dimension } from '../../storage/dimensions';

export type Interval = 'hour' | 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month'];

/** One row time of a series: [start, end) in epoch ms, clipped to the report's range. */
export interface TimeBucket {
  /** The bucket's true start in the zone (what `time` shows, even when the range starts later). */
  time: number;
  start: number;
  end: number;
}

/**
 * Metrics that no aggregate answers alone: `conversion_rate` (the share of one name in another,
 * with `conversion`). Every other metric is an aggregate's (metrics/registry.ts), `count` among them.
 */
export const DERIVED_METRICS = ['conversion_rate'] as const;

/** One requested metric an aggregate answers, as that aggregate parsed it. */
export interface AggregateMetric {
  aggregate: AggregateName;
  metric: ParsedMetric;
}

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
 * present filter is a non-empty list of values as stored (a country's "unknown" is "").
 */
export interface ReportQuery {
  ownerId: string;
  names?: string[];
  /**
   * Per dimension: the stored values the report keeps (a country's "unknown" is ""; a url's
   * canonical form and the form given, since events from before canonical URLs hold the latter:
   * report-filters.ts).
   */
  filters: Partial<Record<Dimension, string[]>>;
  deviceTypes?: DeviceType[];
  /** The dimensions rows are grouped by (besides the name), in the order requested, without duplicates. */
  groupBy: Dimension[];
  /** Metadata keys as the caller wrote them (the store escapes them, see storage/metadata-key.ts). */
  metadataKeys: string[];
  /** The metrics asked for, as named, without duplicates (`['count']` when not given: rows as before metrics existed). */
  metrics: string[];
  /** Those an aggregate answers, in request order. */
  aggregateMetrics: AggregateMetric[];
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
  /** The campaign token the report is restricted to (its URLs are in `filters.url`, its flight in `range`). */
  campaign?: string;
  /**
   * Nothing can match: the campaign's URLs or flight do not meet the given url filter or range.
   * Answered without reading ([] or, with fill_zeros, the zero rows of the series).
   */
  matchesNothing?: boolean;
}

/** `value` or a requested metric (descending by default) or `name` (then the group fields; ascending by default). */
interface OrderBy {
  field: string;
  direction: 'asc' | 'desc';
}

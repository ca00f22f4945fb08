import type { DeviceType } from './enums';

/** Request and response bodies of the Events API (services/events/openapi.yaml). */

export type StringOrList = string | string[];

export const REPORT_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type ReportInterval = (typeof REPORT_INTERVALS)[number];
/** The numbers an event may carry (pixel parameters of the same names). */
export type Measure = 'engaged_ms' | 'scroll_depth' | 'value';
/** Exact: `sum`, `avg`; from a quantile sketch (1 % relative accuracy): percentiles and `gte_<N>`, the share at or above N. */
export type MeasureStat = 'sum' | 'avg' | 'p50' | 'p75' | 'p90' | 'p95' | 'p99' | `gte_${number}`;
/**
 * `count` is the row's `value`; `uniques` adds `uniques` and `uniques_exact` to every row; a
 * measure metric (`engaged_ms_p90`) a field of its name; `conversion_rate` (with `conversion`)
 * a rate on the rows of `conversion.from`.
 */
export type ReportMetric = 'count' | 'uniques' | 'conversion_rate' | 'frequency' | `${Measure}_${MeasureStat}`;
export type ReportOrderBy = 'value' | 'name' | Exclude<ReportMetric, 'count'>;
/** Every metric name the service accepts (the events OpenAPI document's pattern). */
export const REPORT_METRIC_PATTERN =
  '^(count|uniques|conversion_rate|frequency|(engaged_ms|scroll_depth|value)_(sum|avg|p50|p75|p90|p95|p99|gte_(0|[1-9][0-9]{0,12})))$';

export interface ReportQuery {
  /** Required; the API key must be scoped to it (else 403). */
  owner_id: string;
  /**
   * A campaign token of this owner: only the campaign's content URLs (within `url` when given)
   * and its flight (within the dates when given) count, and `timezone` defaults to the campaign's.
   * Any number of URLs (no 100-value limit). An unknown or deleted token is a 400 naming `campaign`.
   */
  campaign?: string;
  url?: StringOrList;
  content_id?: StringOrList;
  name?: StringOrList;
  device_type?: DeviceType | DeviceType[];
  /**
   * ISO 3166-1 alpha-2 codes (either case) or `unknown`. A filter naming a code applies the
   * country floor: rows with too few distinct visitors come back with `below_floor: true` and null numbers.
   */
  country?: StringOrList;
  /** Metadata keys to return (at most 20): a comma list or an array. */
  metadata?: string | string[];
  /**
   * Up to 4 of `content_id`, `url`, `country` and the attribution fields: a comma list or an array.
   * By `country`, countries with too few distinct visitors fold into one `below_floor` country.
   */
  group_by?: string | ReportDimension[];
  /** `YYYY-MM-DD HH:MM:SS` UTC (ISO 8601 and `YYYY-MM-DD` accepted); inclusive. */
  created__gte?: string;
  /** Same form; inclusive of the whole unit written. */
  created__lte?: string;
  /** A time series: one row per bucket (and group) with `time`; needs both bounds. */
  interval?: ReportInterval;
  /** IANA zone (default UTC) for interval boundaries and date-only bounds, e.g. `Asia/Kolkata`. */
  timezone?: string;
  /** With interval: rows with value 0 for buckets where a group had no event. */
  fill_zeros?: boolean;
  /** Top-N groups (1..100000), ranked by their total over the range in `order_by` order. */
  limit?: number;
  /** Default `['count']` (rows as without this field); a comma list or an array, each metric once. */
  metrics?: string | ReportMetric[];
  /** With the `conversion_rate` metric: the rate is the count of `to` over the count of `from`, per group and bucket. */
  conversion?: { from: string; to: string };
  /**
   * `value` or a requested metric (descending by default; one not in `metrics` is a 400) or
   * `name` (ascending by default).
   */
  order_by?: ReportOrderBy;
  order?: 'asc' | 'desc';
}

/** What a report may group by besides the name. */
export type ReportDimension =
  | 'content_id'
  | 'url'
  | 'country'
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign'
  | 'utm_content'
  | 'utm_term'
  | 'referrer';

/**
 * One report row. A row the country floor withholds has `below_floor: true` and every field that
 * comes from its events null (`value`, the metrics, the rate, the metadata values); a row without
 * `below_floor` never has a null `value`.
 */
export interface ReportRow {
  /** Series only: the bucket's start in the requested zone, ISO 8601 with offset (`2026-03-29T00:00:00+01:00`). */
  time?: string;
  name: string;
  /** The row's events; null only when `below_floor` is true. */
  value: number | null;
  /** Present when grouped by content_id. */
  content_id?: string;
  /** Present when grouped by url. */
  url?: string;
  /**
   * Present when grouped by country: an ISO 3166-1 alpha-2 code, `unknown`, or `below_floor` (the
   * countries under the floor, merged into one row per name, time and other group fields).
   */
  country?: string;
  /** Present (true) only on a row withheld by the country floor. */
  below_floor?: true;
  /** Present when metadata keys were asked for; a key not found is "" (null when withheld). */
  metadata?: Record<string, string | null>;
  /**
   * With `metrics` including `uniques`: distinct visitors of this row. Rows do not add up (a
   * visitor in two rows counts in both). 0 in a row filled by `fill_zeros`.
   */
  uniques?: number | null;
  /** With `uniques`: true when exact, false for a HyperLogLog estimate (about 0.81 % standard error). */
  uniques_exact?: boolean | null;
  /** On rows of `conversion.from`, with the `conversion_rate` metric: `to` events over this row's `value`. */
  conversion_rate?: number | null;
  /** With `frequency`: the row's events per distinct visitor. */
  frequency_avg?: number | null;
  /** With `frequency`: visitors reached at least 1, 2, 3, 5 and 10 times. */
  reach_1?: number | null;
  reach_2?: number | null;
  reach_3?: number | null;
  reach_5?: number | null;
  reach_10?: number | null;
  /** With `frequency`: true while the row has at most 4,096 visitors; else a sample's estimate. */
  frequency_exact?: boolean | null;
  /** With `frequency`, when estimated: the reach's relative standard error. */
  frequency_error?: number | null;
  /**
   * Measure metrics (`engaged_ms_p90`: number or null without values) and, for percentiles and
   * shares, `<metric>_exact`. A sum past 2^53 - 1 is its decimal digits as a string (exact; read it
   * with `BigInt`), any smaller sum a number.
   */
  [metric: `${Measure}_${string}`]: number | string | boolean | null | undefined;
}

/** `POST /api/v1/events/scorecard/`: one campaign's figures over its flight so far. */
export interface ScorecardQuery {
  /** Required; the API key must be scoped to it (else 403). */
  owner_id: string;
  /** The campaign's token. */
  campaign: string;
  /** The exposure event (default `impression`): impressions, reach, frequency and pacing count it. */
  impression_name?: string;
  /** Default `click`. */
  click_name?: string;
  /** The event carrying `engaged_ms` (default `engagement`, as the snippet sends it). */
  engagement_name?: string;
  /** Engaged time from which a page view is attentive, 0..3,600,000 ms (default 10,000). */
  attentive_ms?: number;
}

/** A number of visitors (or of their events): exact, or a sample's estimate with its relative standard error. */
export interface ScorecardEstimate {
  value: number;
  exact: boolean;
  /** Relative standard error when estimated (about 95 % of answers lie within twice it); null when exact. */
  error: number | null;
}

/** An on-target estimate: visitors seen in more countries than a sample keeps may be in doubt. */
export interface OnTargetEstimate extends ScorecardEstimate {
  /** Left out of `value` because it cannot be told whether they are on target. */
  undetermined: number;
}

/** One flight day up to today, in the campaign's zone. */
export interface ScorecardPacingDay {
  /** YYYY-MM-DD. */
  day: string;
  impressions: number;
  /** Distinct visitors from the first flight day through this one. */
  reach: ScorecardEstimate;
  /** goal * days elapsed / flight days; null without a goal. */
  goal_to_date: number | null;
  pace: 'ahead' | 'on_pace' | 'behind' | null;
}

/** The campaign scorecard (docs/api/events.md, "Campaign scorecard"). */
export interface CampaignScorecard {
  campaign: {
    token: string;
    name: string | null;
    start_date: string;
    end_date: string;
    /** The campaign owner's IANA zone: the flight's days are its days. */
    timezone: string;
    reach_goal: number | null;
    objective: string | null;
    /** ISO 3166-1 alpha-2 codes: the campaign's target geography, else its owner's. */
    target_countries: string[];
    target_source: 'campaign' | 'owner' | 'none';
    url_count: number;
  };
  /** When it was read, in the campaign's zone: the flight counts up to here. */
  as_of: string;
  names: { impression: string; click: string; engagement: string };
  impressions: number;
  clicks: number;
  /** clicks / impressions; null without impressions. */
  ctr: number | null;
  reach: ScorecardEstimate;
  /** Impressions per visitor reached; null without reach. */
  frequency_avg: number | null;
  frequency: {
    exact: boolean;
    reach_1: ScorecardEstimate;
    reach_2: ScorecardEstimate;
    reach_3: ScorecardEstimate;
    reach_5: ScorecardEstimate;
    reach_10: ScorecardEstimate;
  };
  engagement: {
    events: number;
    engaged_ms_avg: number | null;
    engaged_ms_avg_exact: boolean;
    engaged_ms_p50: number | null;
    engaged_ms_p50_exact: boolean;
    attentive_ms: number;
    attentive_share: number | null;
    attentive_share_exact: boolean;
  };
  /** reach / reach_goal; null without a goal. */
  goal_progress: number | null;
  pacing: { flight_days: number; days: ScorecardPacingDay[] };
  /** Null when there are no target countries. */
  on_target: {
    countries: string[];
    source: 'campaign' | 'owner' | 'none';
    /** Impressions of on-target visitors (one event from a target country makes a visitor on target). */
    impressions: OnTargetEstimate;
    impressions_share: number | null;
    reach: OnTargetEstimate;
  } | null;
  /** Events do not record whether a visitor came from a vid or a cookieless hash: see `caveats`. */
  visitor_basis: 'unrecorded';
  caveats: Array<{ code: string; message: string }>;
}

/** Parameters of one pixel hit (docs/api/events.md). */
export interface PixelParams {
  /** The owner's `unique_id`. */
  owner_id: string;
  /** Event name, e.g. "impression" or "click". */
  name: string;
  /**
   * Page URL, absolute http(s); the service stores its canonical form (tracking parameters,
   * fragment and trailing slash removed, its UTM values kept as the event's attribution) and takes
   * the Referer when omitted.
   */
  url?: string;
  /** The referring site: a host, or a URL of which the service keeps only the host. */
  referrer?: string;
  content_id?: string;
  /**
   * A pseudonymous visitor id you already have (first-party cookie, login), 1..128 characters:
   * the service keeps only a keyed hash of it, so the same id is one visitor in `uniques`.
   */
  vid?: string;
  /** Engaged time in milliseconds (0..3,600,000). */
  engaged_ms?: number;
  /** Furthest scroll in percent (0..100). */
  scroll_depth?: number;
  /** A conversion value in your minor currency unit, e.g. cents (0..10^12). */
  value?: number;
  /**
   * Stored as metadata (at most 20 keys; values up to 512 characters). `utm_source`..`utm_term`
   * (up to 256 characters) also set the event's attribution, over the page URL's own.
   */
  metadata?: Record<string, string>;
}

export interface CreateApiKeyInput {
  /** 1..1000 distinct owner ids the key may read. */
  owner_ids: string[];
}

/** Returned once, when the key is issued: keep `api_key`, the service stores only its hash. */
export interface IssuedApiKey {
  id: string;
  api_key: string;
  owner_ids: string[];
}

export interface ApiKey {
  id: string;
  owner_ids: string[];
  /** `YYYY-MM-DD HH:MM:SS` UTC. */
  created: string;
}

import Joi from 'joi';
import { ValidationError, validate } from '@cm/platform';
import { CAMPAIGN_TOKEN_PATTERN, EVENT_LIMITS } from '@cm/contracts';
import { encodeMetadataKey } from '../../storage/metadata-key';
import { parseReportDate, type ReportDate } from './report-dates';
import { parseMetric } from '../../metrics/registry';
import { DIMENSIONS, type Dimension } from '../../storage/dimensions';
import { DERIVED_METRICS, INTERVALS, type Conversion, type Interval } from './report-query';
import { isTimeZone } from '../../storage/zone-clock';

/** Bound on the values of one list filter: keeps the $in (and the request) small. */
const MAX_FILTER_VALUES = 100;
/** The longest UTM value an event keeps. */
const ATTRIBUTION_MAX = 256;

export type ReportBody = {
  owner_id: string;
  /** A campaign token: the report keeps the campaign's content URLs within its flight (campaign-scope.ts). */
  campaign?: string;
  name?: string[];
  device_type?: Array<'desktop' | 'tablet' | 'mobile'>;
  metadata?: string[];
  group_by?: Dimension[];
  metrics?: string[];
  conversion?: Conversion;
  created__gte?: ReportDate;
  created__lte?: ReportDate;
  interval?: Interval;
  timezone?: string;
  fill_zeros?: boolean;
  limit?: number;
  order_by?: string;
  order?: 'asc' | 'desc';
} & Partial<Record<Dimension, string[]>>;

/** Dimensions one report may group by. */
const MAX_GROUP_BY = 4;

/** Metrics one report may ask for: each measure statistic costs a little on every row. */
const MAX_METRICS = 20;

const metric = Joi.string()
  .max(64)
  .custom((value: string, helpers) => {
    if ((DERIVED_METRICS as readonly string[]).includes(value)) return value;
    const parsed = parseMetric(value);
    if (parsed && 'error' in parsed) return helpers.message({ custom: parsed.error });
    if (parsed) return value;
    return helpers.message({
      custom:
        'must be count, uniques, conversion_rate or a measure statistic <engaged_ms|scroll_depth|value>_<sum|avg|p50|p75|p90|p95|p99|gte_N>',
    });
  });

/** Each dimension's filter: its values as a report may name them. */
const DIMENSION_VALUES: Record<Dimension, Joi.StringSchema> = {
  url: Joi.string().allow('').max(EVENT_LIMITS.urlMax),
  content_id: Joi.string().allow('').max(EVENT_LIMITS.contentIdMax),
  // an ISO 3166-1 alpha-2 code (either case) or "unknown"
  country: Joi.string()
    .pattern(/^([A-Za-z]{2}|unknown)$/, 'an ISO 3166-1 alpha-2 code or unknown')
    .custom((value: string) => (value === 'unknown' ? value : value.toUpperCase())),
  utm_source: Joi.string().allow('').max(ATTRIBUTION_MAX),
  utm_medium: Joi.string().allow('').max(ATTRIBUTION_MAX),
  utm_campaign: Joi.string().allow('').max(ATTRIBUTION_MAX),
  utm_content: Joi.string().allow('').max(ATTRIBUTION_MAX),
  utm_term: Joi.string().allow('').max(ATTRIBUTION_MAX),
  referrer: Joi.string().allow('').max(253),
};

/** An owner's unique_id: digits. */
export const ownerId = Joi.string().pattern(/^\d+$/, 'digits').max(EVENT_LIMITS.ownerIdMax);

export const eventName = Joi.string().min(1).max(EVENT_LIMITS.nameMax);

/** A campaign token as management issues them (base64url): anything else cannot name a campaign. */
export const campaignToken = Joi.string().pattern(CAMPAIGN_TOKEN_PATTERN, 'a campaign token');

/** Upper bound of `limit` (REPORT_MAX_GROUPS bounds it further at run time). */
const MAX_LIMIT = 100_000;

/** A string or a list of strings; a single string becomes a list of one. */
const oneOrMany = (item: Joi.StringSchema) => Joi.array().items(item).single().min(1).max(MAX_FILTER_VALUES);

const reportDate = Joi.string()
  .max(40)
  .custom(
    (value: string, helpers) =>
      parseReportDate(value) ?? helpers.message({ custom: 'must be a date YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601' }),
  );

const metadataKey = Joi.string()
  .min(1)
  .custom((value: string, helpers) =>
    encodeMetadataKey(value).length <= EVENT_LIMITS.metadataKeyMax
      ? value
      : helpers.message({ custom: `metadata keys are at most ${EVENT_LIMITS.metadataKeyMax} characters once escaped` }),
  );

/**
 * The report request. Request data is only ever compared as values (never spread into a query), and a
 * value of the wrong type, e.g. `{"$gt": ""}`, fails here with 400.
 */
const reportBodySchema = Joi.object<ReportBody>({
  owner_id: ownerId.required(),
  campaign: campaignToken,
  ...Object.fromEntries(DIMENSIONS.map((d) => [d, oneOrMany(DIMENSION_VALUES[d])])),
  name: oneOrMany(eventName),
  device_type: oneOrMany(Joi.string().valid('desktop', 'tablet', 'mobile')),
  metadata: Joi.array().items(metadataKey).max(EVENT_LIMITS.metadataKeys).unique(),
  group_by: Joi.array()
    .items(Joi.string().valid(...DIMENSIONS))
    .max(MAX_GROUP_BY)
    .unique(),
  metrics: Joi.array().items(metric).min(1).max(MAX_METRICS).unique(),
  conversion: Joi.object({ from: eventName.required(), to: eventName.required() }),
  created__gte: reportDate,
  created__lte: reportDate,
  interval: Joi.string().valid(...INTERVALS),
  timezone: Joi.string()
    .max(64)
    .custom((value: string, helpers) =>
      isTimeZone(value)
        ? value
        : helpers.message({ custom: 'must be an IANA time zone name, e.g. Europe/Berlin or Asia/Kolkata' }),
    ),
  // strict: "true" or 1 are not booleans in a JSON body
  fill_zeros: Joi.boolean().strict(),
  limit: Joi.number().integer().strict().min(1).max(MAX_LIMIT),
  // 'value', 'name' or one of the requested metrics: checked against them in parseReportRequest
  order_by: Joi.string().max(64),
  order: Joi.string().valid('asc', 'desc'),
});

/** Joi silently skips an own `__proto__` key (JSON.parse makes one): it is refused like any unknown field. */
export function refuseOwnProto(body: unknown): void {
  if (body && typeof body === 'object' && Object.hasOwn(body, '__proto__'))
    throw new ValidationError('invalid body', [{ field: '__proto__', message: 'is not an allowed field' }]);
}

/**
 * `metadata`, `group_by` and `metrics` are comma lists in the API; a JSON array is taken too. A comma list
 * is split (items trimmed) before validation so both forms meet the same item rules; "" is an
 * empty list.
 */
function splitCommaLists(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of ['metadata', 'group_by', 'metrics']) {
    const value = out[field];
    if (typeof value === 'string') out[field] = value.trim() === '' ? [] : value.split(',').map((s) => s.trim());
  }
  return out;
}

/** The body's shape (400 naming each bad field): no campaign, clock or limit is consulted. */
export function validateReportBody(body: unknown): ReportBody {
  refuseOwnProto(body);
  return validate(reportBodySchema, splitCommaLists(body), 'body', { convert: true });
}

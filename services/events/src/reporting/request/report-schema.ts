import Joi from 'joi';
import { EVENT_LIMITS } from '@cm/contracts';
import { encodeMetadataKey } from '../../storage/metadata-key';
import { parseReportDate, type ReportDate } from './report-dates';
import { GROUP_FIELDS, METRICS, type Metric } from './report-query';
import { INTERVALS, type Interval } from './time-buckets';
import { isTimeZone } from './time-zone';

/** Bound on the values of one list filter: keeps the $in (and the request) small. */
const MAX_FILTER_VALUES = 100;

export interface ReportBody {
  owner_id: string;
  url?: string[];
  content_id?: string[];
  name?: string[];
  device_type?: Array<'desktop' | 'tablet' | 'mobile'>;
  metadata?: string[];
  group_by?: Array<'content_id' | 'url'>;
  metrics?: Metric[];
  created__gte?: ReportDate;
  created__lte?: ReportDate;
  interval?: Interval;
  timezone?: string;
  fill_zeros?: boolean;
  limit?: number;
  order_by?: 'value' | 'uniques' | 'name';
  order?: 'asc' | 'desc';
}

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
export const reportBodySchema = Joi.object<ReportBody>({
  owner_id: Joi.string().pattern(/^\d+$/, 'digits').max(EVENT_LIMITS.ownerIdMax).required(),
  url: oneOrMany(Joi.string().allow('').max(EVENT_LIMITS.urlMax)),
  content_id: oneOrMany(Joi.string().allow('').max(EVENT_LIMITS.contentIdMax)),
  name: oneOrMany(Joi.string().min(1).max(EVENT_LIMITS.nameMax)),
  device_type: oneOrMany(Joi.string().valid('desktop', 'tablet', 'mobile')),
  metadata: Joi.array().items(metadataKey).max(EVENT_LIMITS.metadataKeys).unique(),
  group_by: Joi.array()
    .items(Joi.string().valid(...GROUP_FIELDS))
    .max(GROUP_FIELDS.length)
    .unique(),
  metrics: Joi.array()
    .items(Joi.string().valid(...METRICS))
    .min(1)
    .max(METRICS.length)
    .unique(),
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
  order_by: Joi.string().valid('value', 'uniques', 'name'),
  order: Joi.string().valid('asc', 'desc'),
});

/**
 * `metadata`, `group_by` and `metrics` are comma lists in the API; a JSON array is taken too. A comma list
 * is split (items trimmed) before validation so both forms meet the same item rules; "" is an
 * empty list.
 */
export function splitCommaLists(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of ['metadata', 'group_by', 'metrics']) {
    const value = out[field];
    if (typeof value === 'string') out[field] = value.trim() === '' ? [] : value.split(',').map((s) => s.trim());
  }
  return out;
}

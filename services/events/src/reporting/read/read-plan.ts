import type { Document } from 'mongodb';
import { DEVICE_ORDER, type ParsedMetric, type ReportAsk } from '../../metrics/aggregate';
import { aggregateOf, askedAggregates, reportRowParts, type AggregateName } from '../../metrics/registry';
import { familyFor, type Family } from '../../rollups/families';
import { deviceColumn } from '../../rollups/page-layout';
import { matchCondition, pipelineValue, type Dimension } from '../../storage/dimensions';
import { encodeMetadataKey } from '../../storage/metadata-key';
import type { ReportQuery } from '../request/report-query';

/** The `created` condition one bucket needs; absent when the range covers the bucket's whole day. */
export interface CreatedBounds {
  gte?: Date;
  lte?: Date;
}

/**
 * Everything a report reads, worked out once at the top from its query and handed down: what it
 * asks of the aggregates, which of them it reads, the family of rollup cells it reads (none: raw
 * events everywhere), which columns of their pages, how their entries are filtered and grouped,
 * and the raw pipeline of a day bucket.
 */
export interface ReadPlan {
  query: ReportQuery;
  ask: ReportAsk;
  /** The aggregates the report merges (registry order); `count` always. */
  aggregates: AggregateName[];
  /** Undefined when no family keeps every dimension the report filters or groups by. */
  family?: Family;
  /** The page columns to read (the aggregates' folded or per-device columns). */
  columns: string[];
  /** The devices counted, as a bit mask over DEVICE_ORDER. */
  deviceMask: number;
  /** For each of the family's dimensions: the values kept (undefined: all). */
  keyFilters: Array<ReadonlySet<string> | undefined>;
  /** For each group_by dimension, its position in the family's dimensions. */
  groupKeyAt: number[];
  names?: ReadonlySet<string>;
  /**
   * The country floor this report applies (country-floor.ts): the setting when it groups by
   * country or filters by a country code, else 0 (none).
   */
  countryFloor: number;
  /**
   * The raw pipelines of one day bucket, for these created ranges (none: the whole day): one,
   * or, for a url filter too large for one command (a campaign's thousands of long URLs), one
   * per slice of its values, whose parts merge like any others (each event has one url).
   */
  rawPipelines(created: readonly CreatedBounds[]): Document[][];
}

export interface ReadPlanOptions {
  /** REPORT_COUNTRY_FLOOR (0: off). */
  countryFloor?: number;
}

/**
 * Bytes of url filter values one raw pipeline carries: a MongoDB command is at most 16 MiB, and
 * a campaign may hold 10,000 URLs of up to 2,048 characters (20 MiB).
 */
export const RAW_URL_FILTER_BYTES = 4 * 1024 * 1024;

export function readPlanOf(query: ReportQuery, options: ReadPlanOptions = {}): ReadPlan {
  const devices = query.deviceTypes
    ? DEVICE_ORDER.flatMap((d, i) => (query.deviceTypes!.includes(d) ? [i] : []))
    : [0, 1, 2];
  const metrics = new Map<string, ParsedMetric[]>();
  for (const { aggregate, metric } of query.aggregateMetrics) {
    const column = aggregateOf(aggregate).column;
    metrics.set(column, [...(metrics.get(column) ?? []), metric]);
  }
  const countryFloor = floorOf(query, options.countryFloor ?? 0);
  // the floor compares each row's distinct visitors: read them even when the answer does not show them
  const uniques = aggregateOf('uniques').column;
  if (countryFloor > 0 && !metrics.has(uniques)) metrics.set(uniques, []);
  const ask: ReportAsk = {
    metadataKeys: query.metadataKeys.map(encodeMetadataKey),
    metrics,
    devices,
    allDevices: devices.length === 3,
  };
  const aggregates = askedAggregates(ask);
  const needed = new Set<Dimension>([...query.groupBy, ...(Object.keys(query.filters) as Dimension[])]);
  // an aggregate kept only over every device answers a report with a device filter from raw events
  const deviceSplit = !ask.allDevices && aggregates.some((a) => aggregateOf(a).storage === 'folded');
  const family = deviceSplit ? undefined : familyFor(needed, aggregates);
  const columns: string[] = [];
  for (const name of aggregates) {
    const aggregate = aggregateOf(name);
    columns.push(aggregate.column);
    if (aggregate.storage === 'foldedWithDevices' && !ask.allDevices) columns.push(deviceColumn(aggregate.column));
    // a stored form that leans on another aggregate's states is read with that one's column
    const basis = aggregate.basis as AggregateName | undefined;
    if (basis !== undefined && family?.aggregates.includes(basis) && !columns.includes(aggregateOf(basis).column))
      columns.push(aggregateOf(basis).column);
  }
  const dims = family?.dimensions ?? [];
  const urlSlices = query.filters.url ? slicesOf(query.filters.url, RAW_URL_FILTER_BYTES) : [undefined];
  return {
    query,
    ask,
    aggregates,
    family,
    columns,
    deviceMask: devices.reduce((m, d) => m | (1 << d), 0),
    keyFilters: dims.map((d) => (query.filters[d] ? new Set(query.filters[d]) : undefined)),
    groupKeyAt: query.groupBy.map((d) => dims.indexOf(d)),
    names: query.names ? new Set(query.names) : undefined,
    countryFloor,
    rawPipelines: (created) => urlSlices.map((urls) => buildRawPipeline(query, ask, created, urls)),
  };
}

/** The floor applies to rows that can name a country: grouped by country, or filtered by a code ("" is unknown). */
function floorOf(query: ReportQuery, floor: number): number {
  const named = query.groupBy.includes('country') || (query.filters.country ?? []).some((c) => c !== '');
  return named ? floor : 0;
}

/** One value is an equality (the index's favourite), several an $in. Values are validated strings, never operators. */
function oneOf(values: readonly string[]): unknown {
  return values.length === 1 ? values[0] : { $in: [...values] };
}

/**
 * The per-bucket pipeline: match the owner's non-bot events, group by name, the group_by
 * dimensions and what the asked aggregates add (the visitor, the measures' values), with the
 * asked aggregates' accumulators.
 */
function buildRawPipeline(
  query: ReportQuery,
  ask: ReportAsk,
  created: readonly CreatedBounds[],
  urls: readonly string[] | undefined,
): Document[] {
  const match: Document = { owner_id: query.ownerId, bot: { $ne: true } };
  if (query.names) match.name = oneOf(query.names);
  for (const [dimension, values] of Object.entries(query.filters) as Array<[Dimension, string[]]>)
    match[dimension] = matchCondition(dimension === 'url' ? urls! : values);
  if (query.deviceTypes) match.device_type = oneOf(query.deviceTypes);
  // several ranges (a report's raw parts within one day bucket, e.g. dirty hours) are one $or
  const ranges = created.filter((c) => c.gte || c.lte).map(createdCondition);
  if (ranges.length === 1) match.created = ranges[0];
  else if (ranges.length > 1) match.$or = ranges.map((range) => ({ created: range }));
  const { key, group } = reportRowParts(ask);
  const id: Document = { name: '$name' };
  query.groupBy.forEach((dimension, i) => (id[`g${i}`] = pipelineValue(dimension)));
  Object.assign(id, key);
  return [{ $match: match }, { $group: { _id: id, ...group } }];
}

/** The values in consecutive slices of at most `maxBytes` UTF-8 bytes each (at least one value a slice). */
function slicesOf(values: readonly string[], maxBytes: number): string[][] {
  const slices: string[][] = [[]];
  let bytes = 0;
  for (const value of values) {
    const size = Buffer.byteLength(value) + 16;
    if (bytes + size > maxBytes && slices[slices.length - 1]!.length > 0) {
      slices.push([]);
      bytes = 0;
    }
    slices[slices.length - 1]!.push(value);
    bytes += size;
  }
  return slices;
}

function createdCondition(created: CreatedBounds): Document {
  return { ...(created.gte ? { $gte: created.gte } : {}), ...(created.lte ? { $lte: created.lte } : {}) };
}

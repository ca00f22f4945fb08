import type { Document } from 'mongodb';
import { DEVICE_ORDER, type ParsedMetric, type ReportAsk } from '../../metrics/aggregate';
import { aggregateOf, askedAggregates, type AggregateName, type GroupStates } from '../../metrics/registry';
import { familyFor, type Family } from '../../rollups/families';
import { deviceColumn } from '../../rollups/page-layout';
import type { Dimension } from '../../storage/dimensions';
import { encodeMetadataKey } from '../../storage/metadata-key';
import type { ReportQuery } from '../request/report-query';
import { rawPipelinesOf, type CreatedBounds } from './raw-pipeline';

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
  /**
   * The states of no events, every aggregate empty: a row withheld by the country floor, a
   * series' filled row. Frozen and shared by those rows: nothing merges into them.
   */
  emptyStates: GroupStates;
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
   * Groups (rows of a series) the read may hold while merging, more is a 400 naming the cap: a
   * top-N report's (`limit`) ranks more of them than a report shows.
   */
  maxGroups: number;
  /** Estimated bytes those groups may take (undefined: MAX_GROUP_BYTES); more is a 400 naming the bound. */
  maxGroupBytes?: number;
  /**
   * The raw pipelines of one day bucket, for these created ranges (none: the whole day): one,
   * or, for a url filter too large for one command (a campaign's thousands of long URLs), one
   * per slice of its values, whose parts merge like any others (each event has one url).
   */
  rawPipelines(created: readonly CreatedBounds[]): Document[][];
}

/** The report's limits the plan applies (ReportServiceLimits); absent: none. */
export interface ReadPlanOptions {
  /** REPORT_COUNTRY_FLOOR (0: off). */
  countryFloor?: number;
  /** Groups a report may hold (REPORT_MAX_GROUPS). */
  maxGroups?: number;
  /** Groups a top-N report may rank (REPORT_MAX_RANKED_GROUPS). */
  maxRankedGroups?: number;
  /** Estimated bytes of the groups one report may hold (default MAX_GROUP_BYTES). */
  maxGroupBytes?: number;
}

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
  return {
    query,
    ask,
    aggregates,
    emptyStates: Object.freeze(
      Object.fromEntries(aggregates.map((name) => [name, aggregateOf(name).empty()])),
    ) as GroupStates,
    family,
    columns,
    deviceMask: devices.reduce((m, d) => m | (1 << d), 0),
    keyFilters: dims.map((d) => (query.filters[d] ? new Set(query.filters[d]) : undefined)),
    groupKeyAt: query.groupBy.map((d) => dims.indexOf(d)),
    names: query.names ? new Set(query.names) : undefined,
    countryFloor,
    maxGroups: (query.limit !== undefined ? options.maxRankedGroups : options.maxGroups) ?? Infinity,
    ...(options.maxGroupBytes !== undefined ? { maxGroupBytes: options.maxGroupBytes } : {}),
    rawPipelines: rawPipelinesOf(query, ask),
  };
}

/** The floor applies to rows that can name a country: grouped by country, or filtered by a code ("" is unknown). */
function floorOf(query: ReportQuery, floor: number): number {
  const named = query.groupBy.includes('country') || (query.filters.country ?? []).some((c) => c !== '');
  return named ? floor : 0;
}

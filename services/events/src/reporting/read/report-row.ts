import { aggregateOf } from '../../metrics/registry';
import { metadataValue, type Latest } from '../../metrics/latest-aggregate';
import { shownValue } from '../../storage/dimensions';
import { formatZoned } from '../../storage/zone-clock';
import type { ReadPlan } from './read-plan';
import type { ReportGroup } from './report-group';

/** One element of the response array (`time` only for a series). */
export interface ReportRow {
  time?: string;
  name: string;
  /** Null only in a row withheld by the country floor (`below_floor: true`). */
  value: number | null;
  /** The group_by dimensions, each metric's fields (`uniques`, `engaged_ms_p90`, `<metric>_exact`, `conversion_rate`). */
  [field: string]: string | number | boolean | null | Record<string, string | null> | undefined;
  metadata?: Record<string, string | null>;
}

/** One group as a response row: its time in the report's zone, group fields as shown, each metric's fields, its rate, its metadata. */
export function reportRow(
  group: ReportGroup,
  plan: ReadPlan,
  rates?: (g: ReportGroup) => number | null | undefined,
): ReportRow {
  const { query } = plan;
  // withheld by the country floor: every field that comes from its events null (below)
  const hide = group.belowFloor === true;
  // built in response order: time, name, group fields, value, metrics, conversion_rate, metadata, below_floor
  const row = {} as ReportRow;
  if (query.series) row.time = formatZoned(query.timeZone ?? 'UTC', group.time ?? 0);
  row.name = group.name;
  query.groupBy.forEach((dimension, i) => (row[dimension] = shownValue(dimension, group.dims[i] ?? '')));
  row.value = hide ? null : ((group.states.count as number | undefined) ?? 0);
  const states = group.states as Record<string, unknown>;
  for (const { aggregate, metric } of query.aggregateMetrics) {
    if (aggregate === 'count') continue;
    const state = states[aggregate] ?? aggregateOf(aggregate).empty();
    // written into the row itself (thousands of rows: no object per metric and row), each field
    // nulled after when withheld
    if (!hide) aggregateOf(aggregate).fields?.(state, metric, row);
    else {
      const fields: Record<string, unknown> = {};
      aggregateOf(aggregate).fields?.(state, metric, fields);
      for (const field of Object.keys(fields)) row[field] = null;
    }
  }
  if (rates) {
    const rate = rates(group);
    if (hide && group.name === query.conversion!.from) row.conversion_rate = null;
    else if (rate !== undefined) row.conversion_rate = rate;
  }
  if (query.metadataKeys.length > 0)
    row.metadata = metadataOf((group.states.latest as Latest | null | undefined) ?? null, plan, hide);
  if (hide) row.below_floor = true;
  return row;
}

/**
 * A row's metadata under the caller's keys ('' for a key the latest event lacks, null when
 * withheld). Thousands of rows: filled by assignment in key order (every row one shape), no list
 * per row; a key "__proto__", which assignment would take as the object's prototype, is defined
 * as an own property instead.
 */
function metadataOf(latest: Latest | null, plan: ReadPlan, hide: boolean): Record<string, string | null> {
  const keys = plan.query.metadataKeys;
  const asked = plan.ask.metadataKeys;
  const out: Record<string, string | null> = {};
  for (let i = 0; i < keys.length; i++) {
    const value = hide ? null : metadataValue(latest, asked[i]!);
    if (keys[i] === '__proto__')
      Object.defineProperty(out, '__proto__', { value, enumerable: true, writable: true, configurable: true });
    else out[keys[i]!] = value;
  }
  return out;
}

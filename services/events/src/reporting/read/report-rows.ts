import { aggregateOf } from '../../metrics/registry';
import { metadataValues, type Latest } from '../../metrics/latest-aggregate';
import { shownValue } from '../../storage/dimensions';
import { formatZoned } from '../request/zoned-time';
import { conversionRates } from './conversion-rates';
import { applyCountryFloor, namesCountry } from './country-floor';
import type { ReadPlan } from './read-plan';
import { byFields, identity, rankGroups } from './report-rank';
import { emptyStates, TooManyGroupsError, type ReportGroup } from './report-groups';

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

/**
 * Shapes merged groups into the response: the country floor first (country-floor.ts: small
 * countries folded, small filtered rows withheld, so nothing after it sees a hidden number);
 * grouped fields as requested, metadata under the caller's keys. Top-N (`limit`) keeps the first
 * groups in `orderBy` order, ranked by their total over the whole range (with a conversion rate:
 * sets of group fields, every name); a series fills the missing (time, group) rows with 0 when
 * asked. Rows sort by time, then by `orderBy` rank, or by name then the group fields.
 */
export function toReportRows(merged: readonly ReportGroup[], plan: ReadPlan, maxRows = Infinity): ReportRow[] {
  const { query } = plan;
  const groups = applyCountryFloor(merged, plan);
  const rank = query.orderBy ? rankGroups(groups, plan) : undefined;
  // from every group, before top-N keeps some: a kept row's rate needs its `from` row even when that one is cut
  const rates = query.conversion ? conversionRates(groups, query.conversion) : undefined;
  let kept =
    query.limit !== undefined && rank ? groups.filter((g) => rank.get(identity(g))! < query.limit!) : [...groups];
  if (query.series && query.fillZeros) kept = fillZeros(kept, plan, maxRows);
  if (kept.length > maxRows) throw new TooManyGroupsError(maxRows, false);
  const sorted = rank
    ? kept
        .map((g) => ({ g, r: rank.get(identity(g))! }))
        // rows of one rank (a group's names, ranked by conversion rate) by name
        .sort((a, b) => (a.g.time ?? 0) - (b.g.time ?? 0) || a.r - b.r || byFields(a.g, b.g))
        .map((x) => x.g)
    : kept.sort((a, b) => (a.time ?? 0) - (b.time ?? 0) || byFields(a, b));
  return sorted.map((group) => toRow(group, plan, rates));
}

function toRow(group: ReportGroup, plan: ReadPlan, rates?: (g: ReportGroup) => number | null | undefined): ReportRow {
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
    const fields: Record<string, unknown> = {};
    aggregateOf(aggregate).fields?.(states[aggregate] ?? aggregateOf(aggregate).empty(), metric, fields);
    for (const [field, value] of Object.entries(fields)) row[field] = hide ? null : (value as ReportRow[string]);
  }
  if (rates) {
    const rate = rates(group);
    if (hide && group.name === query.conversion!.from) row.conversion_rate = null;
    else if (rate !== undefined) row.conversion_rate = rate;
  }
  if (query.metadataKeys.length > 0) {
    const values = metadataValues((group.states.latest as Latest | null | undefined) ?? null, plan.ask.metadataKeys);
    // fromEntries defines own properties, so even a key like "__proto__" is just a key
    row.metadata = Object.fromEntries(query.metadataKeys.map((key, i) => [key, hide ? null : (values[i] ?? '')]));
  }
  if (hide) row.below_floor = true;
  return row;
}

/**
 * Every group seen (and, without group_by, every requested name) in every row time. Under the
 * country floor a country's missing rows are withheld rather than 0: a country with no row in a
 * bucket may have been folded there, and a 0 would be false (and tell a folded country from one
 * with no visitors at all).
 */
function fillZeros(groups: ReportGroup[], plan: ReadPlan, maxRows: number): ReportGroup[] {
  const { query } = plan;
  const at = plan.countryFloor > 0 ? query.groupBy.indexOf('country') : -1;
  const zero = (name: string, dims: readonly string[]): ReportGroup => ({ name, dims, states: { count: 0 } });
  const ids = new Map<string, ReportGroup>();
  for (const g of groups) ids.set(identity(g), zero(g.name, g.dims));
  if (query.groupBy.length === 0)
    for (const name of query.names ?? []) ids.set(identity({ name, dims: [] }), zero(name, []));
  // checked before filling: buckets x groups can be far more than the cap
  if ((query.series?.length ?? 0) * ids.size > maxRows) throw new TooManyGroupsError(maxRows, false);
  const present = new Set(groups.map((g) => `${g.time}|${identity(g)}`));
  const out = [...groups];
  for (const bucket of query.series ?? []) {
    for (const [key, z] of ids) {
      if (present.has(`${bucket.time}|${key}`)) continue;
      const filled: ReportGroup = { ...z, states: emptyStates(plan.aggregates), time: bucket.time };
      if (at >= 0 && namesCountry(z.dims[at]!)) filled.belowFloor = true;
      out.push(filled);
    }
  }
  return out;
}

import { aggregateOf, type GroupStates } from '../../metrics/registry';
import { metadataValues, type Latest } from '../../metrics/latest-aggregate';
import { shownValue } from '../../storage/dimensions';
import type { ReportQuery } from '../request/report-query';
import { formatZoned } from '../request/time-zone';
import { conversionRates, conversionTotals } from './conversion-rates';
import type { ReadPlan } from './read-plan';
import { groupKey, TooManyGroupsError, type ReportGroup } from './report-groups';

/** One element of the response array (`time` only for a series). */
export interface ReportRow {
  time?: string;
  name: string;
  value: number;
  /** The group_by dimensions, each metric's fields (`uniques`, `engaged_ms_p90`, `<metric>_exact`, `conversion_rate`). */
  [field: string]: string | number | boolean | null | Record<string, string> | undefined;
  metadata?: Record<string, string>;
}

/**
 * Shapes merged groups into the response: grouped fields as requested, metadata under the
 * caller's keys. Top-N (`limit`) keeps the first groups in `orderBy` order, ranked by their total
 * over the whole range (with a conversion rate: sets of group fields, every name); a series fills the missing (time, group) rows with 0 when asked. Rows
 * sort by time, then by `orderBy` rank, or by name then the group fields.
 */
export function toReportRows(groups: readonly ReportGroup[], plan: ReadPlan, maxRows = Infinity): ReportRow[] {
  const { query } = plan;
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

/** Name, then the group fields in request order (code-unit order). */
function byFields(a: ReportGroup, b: ReportGroup): number {
  const c = compare(a.name, b.name);
  if (c !== 0) return c;
  for (let i = 0; i < a.dims.length; i++) {
    const d = compare(a.dims[i]!, b.dims[i]!);
    if (d !== 0) return d;
  }
  return 0;
}

function toRow(group: ReportGroup, plan: ReadPlan, rates?: (g: ReportGroup) => number | null | undefined): ReportRow {
  const { query } = plan;
  // built in response order: time, name, group fields, value, metrics, conversion_rate, metadata
  const row = {} as ReportRow;
  if (query.series) row.time = formatZoned(query.timeZone ?? 'UTC', group.time ?? 0);
  row.name = group.name;
  query.groupBy.forEach((dimension, i) => (row[dimension] = shownValue(dimension, group.dims[i] ?? '')));
  row.value = (group.states.count as number | undefined) ?? 0;
  const states = group.states as Record<string, unknown>;
  for (const { aggregate, metric } of query.aggregateMetrics) {
    if (aggregate === 'count') continue;
    aggregateOf(aggregate).fields?.(states[aggregate] ?? aggregateOf(aggregate).empty(), metric, row);
  }
  if (rates) {
    const rate = rates(group);
    if (rate !== undefined) row.conversion_rate = rate;
  }
  if (query.metadataKeys.length > 0) {
    const values = metadataValues((group.states.latest as Latest | null | undefined) ?? null, plan.ask.metadataKeys);
    // fromEntries defines own properties, so even a key like "__proto__" is just a key
    row.metadata = Object.fromEntries(query.metadataKeys.map((key, i) => [key, values[i] ?? '']));
  }
  return row;
}

/** A group without its time: what top-N ranks and a series fills. */
function identity(g: Pick<ReportGroup, 'name' | 'dims'>): string {
  return groupKey(undefined, g.name, g.dims);
}

/**
 * Rank of each group (0 first) by its total over all row times (visitors and quantiles: the union
 * over the row times, never a sum), or by name then group fields. By conversion rate, a group's
 * rows of every name share the rank of the group's rate.
 */
function rankGroups(groups: readonly ReportGroup[], plan: ReadPlan): Map<string, number> {
  const { query } = plan;
  const { field, direction } = query.orderBy!;
  if (field === 'conversion_rate') return rankByRate(groups, query);
  const totals = new Map<string, ReportGroup>();
  for (const g of groups) {
    const key = identity(g);
    const seen = totals.get(key);
    if (!seen) totals.set(key, { name: g.name, dims: g.dims, states: ownStates(g.states) });
    else mergeTotal(seen, g);
  }
  const asked = query.aggregateMetrics.find((m) => m.metric.metric === field);
  const metric = (g: ReportGroup): number | bigint | null => {
    if (field === 'value') return (g.states.count as number | undefined) ?? 0;
    if (!asked) return 0;
    const states = g.states as Record<string, unknown>;
    const rank = aggregateOf(asked.aggregate).rank;
    // null (an average without events) ranks last
    return rank ? rank(states[asked.aggregate], asked.metric) : 0;
  };
  const byRow = ranked([...totals.entries()], metric, direction, field === 'name');
  return query.conversion ? rankByBestRow(groups, byRow) : byRow;
}

/**
 * With a conversion rate asked, every row of a set of group fields takes the place of that set's
 * best-ranked row (ranks stay 0, 1, 2, ...): top-N keeps or drops a group with all its names and
 * never cuts the `from` row that carries a kept group's rate.
 */
function rankByBestRow(groups: readonly ReportGroup[], byRow: Map<string, number>): Map<string, number> {
  const best = new Map<string, number>();
  for (const g of groups) {
    const key = groupKey(undefined, '', g.dims);
    const rank = byRow.get(identity(g))!;
    if (!(best.get(key)! <= rank)) best.set(key, rank);
  }
  const place = new Map([...best.entries()].sort((a, b) => a[1] - b[1]).map(([key], i) => [key, i]));
  return new Map(groups.map((g) => [identity(g), place.get(groupKey(undefined, '', g.dims))!]));
}

function ownStates(states: GroupStates): GroupStates {
  const out: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(states)) out[name] = aggregateOf(name as keyof GroupStates).own(state);
  return out as GroupStates;
}

function mergeTotal(seen: ReportGroup, g: ReportGroup): void {
  const states = seen.states as Record<string, unknown>;
  for (const [name, state] of Object.entries(g.states)) {
    const aggregate = aggregateOf(name as keyof GroupStates);
    states[name] = states[name] === undefined ? aggregate.own(state) : aggregate.mergeInto(states[name], state);
  }
}

/** Ranks by the conversion rate of each group's totals (its group fields, every name). */
function rankByRate(groups: readonly ReportGroup[], query: ReportQuery): Map<string, number> {
  const totals = conversionTotals(groups, query.conversion!);
  const entries = [...totals.entries()].map(
    ([key, t]) => [key, { name: '', dims: t.dims, states: {} }] as [string, ReportGroup],
  );
  const rates = new Map(entries.map(([key, g]) => [g, totals.get(key)!.rate]));
  const byGroup = ranked(entries, (g) => rates.get(g)!, query.orderBy!.direction, false);
  // every row of a group, whatever its name, takes the group's rank
  const out = new Map<string, number>();
  for (const g of groups) out.set(identity(g), byGroup.get(groupKey(undefined, '', g.dims))!);
  return out;
}

/** Ranks by `metric` (a null metric, e.g. an average without events, always comes last), ties by the group fields. */
function ranked(
  entries: Array<[string, ReportGroup]>,
  metric: (g: ReportGroup) => number | bigint | null,
  direction: 'asc' | 'desc',
  byNameOnly: boolean,
): Map<string, number> {
  const sign = direction === 'asc' ? 1 : -1;
  const ordered = entries
    .map(([key, g]) => ({ key, g, m: metric(g) }))
    .sort((a, b) => {
      if (byNameOnly) return sign * byFields(a.g, b.g);
      if (a.m === null || b.m === null) return (a.m === null ? 1 : 0) - (b.m === null ? 1 : 0) || byFields(a.g, b.g);
      // a sum past 2^53 is a bigint: compared with numbers exactly, never subtracted
      return sign * (a.m < b.m ? -1 : a.m > b.m ? 1 : 0) || byFields(a.g, b.g);
    });
  return new Map(ordered.map(({ key }, i) => [key, i]));
}

/** Every group seen (and, without group_by, every requested name) in every row time. */
function fillZeros(groups: ReportGroup[], plan: ReadPlan, maxRows: number): ReportGroup[] {
  const { query } = plan;
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
    for (const [key, z] of ids)
      if (!present.has(`${bucket.time}|${key}`)) out.push({ ...z, states: emptyStates(plan), time: bucket.time });
  }
  return out;
}

/** A zero row's states: every asked aggregate empty. */
function emptyStates(plan: ReadPlan): GroupStates {
  const out: Record<string, unknown> = {};
  for (const name of plan.aggregates) out[name] = aggregateOf(name).empty();
  return out as GroupStates;
}

/** Code-unit order: stable across locales and servers. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { GroupCount } from './count-source';
import { TooManyGroupsError, groupKey } from './group-accumulator';
import type { ReportQuery } from '../request/report-query';
import { formatZoned } from '../request/time-zone';
import { emptySketch, mergeSketches, sketchCount } from '../../sketches/distinct-sketch';
import { mergeSums } from '../../rollups/aggregates/sums-aggregate';
import { mergeQuantileStates } from '../../rollups/aggregates/quantiles-aggregate';
import { isApproximate } from '../request/measure-metrics';
import { conversionRates, conversionTotals } from './conversion-rates';
import { measureAnswer, sumAsJson } from './measure-answers';

/** One element of the response array (`time` only for a series). */
export interface ReportRow {
  time?: string;
  name: string;
  content_id?: string;
  url?: string;
  value: number;
  /** With the `uniques` metric: the row's distinct visitors, and whether that number is exact. */
  uniques?: number;
  uniques_exact?: boolean;
  /** Measure metrics (`engaged_ms_p90`, ...), their `<metric>_exact`, and `conversion_rate`, as requested. */
  [metric: string]: string | number | boolean | null | Record<string, string> | undefined;
  metadata?: Record<string, string>;
}

/**
 * Shapes merged groups into the response: grouped fields as requested, metadata under the
 * caller's keys. Top-N (`limit`) keeps the first groups in `orderBy` order, ranked by their total
 * over the whole range (with a conversion rate: sets of group fields, every name; rankGroups); a series fills the missing (time, group) rows with 0 when asked. Rows
 * sort by time, then by `orderBy` rank, or by name then the group fields.
 */
export function toReportRows(groups: readonly GroupCount[], query: ReportQuery, maxRows = Infinity): ReportRow[] {
  const rank = query.orderBy ? rankGroups(groups, query) : undefined;
  // from every group, before top-N keeps some: a kept row's rate needs its `from` row even when that one is cut
  const rates = query.conversion ? conversionRates(groups, query.conversion, query.groupBy) : undefined;
  let kept =
    query.limit !== undefined && rank ? groups.filter((g) => rank.get(identity(g))! < query.limit!) : [...groups];
  if (query.series && query.fillZeros) kept = fillZeros(kept, query, maxRows);
  if (kept.length > maxRows) throw new TooManyGroupsError(maxRows, false);
  const byFields = fieldOrder(query);
  const sorted = rank
    ? kept
        .map((g) => ({ g, r: rank.get(identity(g))! }))
        // rows of one rank (a group's names, ranked by conversion rate) by name
        .sort((a, b) => (a.g.time ?? 0) - (b.g.time ?? 0) || a.r - b.r || byFields(a.g, b.g))
        .map((x) => x.g)
    : kept.sort((a, b) => (a.time ?? 0) - (b.time ?? 0) || byFields(a, b));
  return sorted.map((group) => toRow(group, query, rates));
}

/** Name, then the group fields in request order (code-unit order). */
function fieldOrder(query: ReportQuery): (a: GroupCount, b: GroupCount) => number {
  const [first, second] = query.groupBy;
  return (a, b) =>
    compare(a.name, b.name) ||
    (first ? compare(a[first] ?? '', b[first] ?? '') : 0) ||
    (second ? compare(a[second] ?? '', b[second] ?? '') : 0);
}

function toRow(group: GroupCount, query: ReportQuery, rates?: (g: GroupCount) => number | null | undefined): ReportRow {
  // built in response order: time, name, group fields, value, uniques, measures, conversion_rate, metadata
  const row = {} as ReportRow;
  if (query.series) row.time = formatZoned(query.timeZone ?? 'UTC', group.time ?? 0);
  row.name = group.name;
  for (const field of query.groupBy) row[field] = group[field] ?? '';
  row.value = group.value;
  if (query.metrics.includes('uniques')) {
    const { value, exact } = sketchCount(group.uniques ?? emptySketch());
    row.uniques = value;
    row.uniques_exact = exact;
  }
  for (const m of query.measureMetrics) {
    const answer = measureAnswer(group, m);
    row[m.metric] = sumAsJson(answer.value);
    if (isApproximate(m)) row[`${m.metric}_exact`] = answer.exact;
  }
  if (rates) {
    const rate = rates(group);
    if (rate !== undefined) row.conversion_rate = rate;
  }
  if (query.metadataKeys.length > 0) {
    // fromEntries defines own properties, so even a key like "__proto__" is just a key
    row.metadata = Object.fromEntries(query.metadataKeys.map((key, i) => [key, group.latest?.metadata[i] ?? '']));
  }
  return row;
}

/** A group without its time: what top-N ranks and a series fills. */
function identity(g: Pick<GroupCount, 'name' | 'content_id' | 'url'>): string {
  return groupKey({ name: g.name, content_id: g.content_id, url: g.url });
}

/**
 * Rank of each group (0 first) by its total over all row times (visitors and quantiles: the union
 * over the row times, never a sum), or by name then group fields. With a conversion rate asked,
 * the rows of one set of group fields share one rank whatever their name (by conversion rate: the
 * rate of the group; otherwise the best rank among its rows), so top-N keeps or drops a group with
 * all its names and never cuts the `from` row that carries a kept group's rate.
 */
function rankGroups(groups: readonly GroupCount[], query: ReportQuery): Map<string, number> {
  const { field, direction } = query.orderBy!;
  if (field === 'conversion_rate') return rankByRate(groups, query);
  const totals = new Map<string, GroupCount>();
  for (const g of groups) {
    const key = identity(g);
    const seen = totals.get(key);
    if (!seen) totals.set(key, { ...g, time: undefined });
    else mergeTotal(seen, g);
  }
  const measure = query.measureMetrics.find((m) => m.metric === field);
  const metric = (g: GroupCount): number | bigint | null =>
    field === 'uniques'
      ? sketchCount(g.uniques ?? emptySketch()).value
      : measure
        ? measureAnswer(g, measure).value
        : field === 'value'
          ? g.value
          : 0;
  const byRow = ranked([...totals.entries()], metric, direction, field === 'name', fieldOrder(query));
  return query.conversion ? rankByBestRow(groups, byRow) : byRow;
}

/** Every row of a set of group fields takes the place of that set's best-ranked row (ranks stay 0, 1, 2, ...). */
function rankByBestRow(groups: readonly GroupCount[], byRow: Map<string, number>): Map<string, number> {
  const best = new Map<string, number>();
  for (const g of groups) {
    const key = fieldsOf(g);
    const rank = byRow.get(identity(g))!;
    if (!(best.get(key)! <= rank)) best.set(key, rank);
  }
  const place = new Map([...best.entries()].sort((a, b) => a[1] - b[1]).map(([key], i) => [key, i]));
  return new Map(groups.map((g) => [identity(g), place.get(fieldsOf(g))!]));
}

/** A group without its time and name: the fields it is grouped by. */
function fieldsOf(g: Pick<GroupCount, 'content_id' | 'url'>): string {
  return groupKey({ name: '', content_id: g.content_id, url: g.url });
}

function mergeTotal(seen: GroupCount, g: GroupCount): void {
  seen.value += g.value;
  if (g.uniques) seen.uniques = mergeSketches(seen.uniques ?? emptySketch(), g.uniques);
  if (g.sums) seen.sums = seen.sums ? mergeSums(seen.sums, g.sums) : g.sums;
  if (g.quantiles) seen.quantiles = seen.quantiles ? mergeQuantileStates(seen.quantiles, g.quantiles) : g.quantiles;
}

/** Ranks by the conversion rate of each group's totals (its group fields, every name). */
function rankByRate(groups: readonly GroupCount[], query: ReportQuery): Map<string, number> {
  const totals = conversionTotals(groups, query.conversion!, query.groupBy);
  const entries = [...totals.entries()].map(([key, t]) => [key, { ...t.group, value: 0 }] as [string, GroupCount]);
  const rates = new Map(entries.map(([key, g]) => [g, totals.get(key)!.rate]));
  const byGroup = ranked(entries, (g) => rates.get(g)!, query.orderBy!.direction, false, fieldOrder(query));
  // every row of a group, whatever its name, takes the group's rank
  const out = new Map<string, number>();
  for (const g of groups) out.set(identity(g), byGroup.get(fieldsOf(g))!);
  return out;
}

/** Ranks by `metric` (a null metric, e.g. an average without events, always comes last), ties by the group fields. */
function ranked(
  entries: Array<[string, GroupCount]>,
  metric: (g: GroupCount) => number | bigint | null,
  direction: 'asc' | 'desc',
  byNameOnly: boolean,
  byFields: (a: GroupCount, b: GroupCount) => number,
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
function fillZeros(groups: GroupCount[], query: ReportQuery, maxRows: number): GroupCount[] {
  const ids = new Map<string, GroupCount>();
  for (const g of groups) ids.set(identity(g), { name: g.name, ...fields(g, query), value: 0 });
  if (query.groupBy.length === 0) for (const name of query.names ?? []) ids.set(identity({ name }), { name, value: 0 });
  // checked before filling: buckets x groups can be far more than the cap
  if ((query.series?.length ?? 0) * ids.size > maxRows) throw new TooManyGroupsError(maxRows, false);
  const present = new Set(groups.map((g) => `${g.time}|${identity(g)}`));
  const out = [...groups];
  for (const bucket of query.series ?? []) {
    for (const [key, zero] of ids) if (!present.has(`${bucket.time}|${key}`)) out.push({ ...zero, time: bucket.time });
  }
  return out;
}

function fields(g: GroupCount, query: ReportQuery): Partial<GroupCount> {
  return Object.fromEntries(query.groupBy.map((f) => [f, g[f] ?? ''])) as Partial<GroupCount>;
}

/** Code-unit order: stable across locales and servers. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

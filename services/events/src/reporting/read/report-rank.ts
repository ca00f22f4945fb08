import { aggregateOf } from '../../metrics/registry';
import type { Conversion, ReportQuery } from '../request/report-query';
import type { ReadPlan } from './read-plan';
import type { ReportGroup } from './report-group';

/** What a rank compares: a name and group fields. */
type Named = Pick<ReportGroup, 'name' | 'dims'>;

/** Name, then the group fields in request order (code-unit order). */
export function byFields(a: Named, b: Named): number {
  const c = compare(a.name, b.name);
  if (c !== 0) return c;
  for (let i = 0; i < a.dims.length; i++) {
    const d = compare(a.dims[i]!, b.dims[i]!);
    if (d !== 0) return d;
  }
  return 0;
}

/** A group's rank (0 first), or undefined for a group top-N leaves out. */
export type RankOf = (g: ReportGroup) => number | undefined;

/**
 * Rank of each group (0 first), from the groups' totals over all row times (groupTotals: one per
 * `id`), by a metric's total or by name then group fields. By conversion rate, a group's rows of
 * every name share the rank of the group's rate. A total whose every row is withheld by the
 * country floor ranks last, like an average without events: its hidden numbers never decide its
 * place. Every row of a group takes its total's rank (found by `id`). `totalsAreRows`: the totals
 * are the rows themselves (no series: one row per group), found as they are, no key made for
 * thousands of groups. With top-N (`limit`) only the first `limit` are ranked: the others are
 * left out, and never sorted.
 */
export function rankGroups(totals: readonly ReportGroup[], plan: ReadPlan, totalsAreRows = false): RankOf {
  const { query } = plan;
  const { field, direction } = query.orderBy!;
  if (field === 'conversion_rate') return byId(rankByRate(totals, query));
  const asked = query.aggregateMetrics.find((m) => m.metric.metric === field);
  const metric = (g: ReportGroup): number | bigint | null => {
    if (g.belowFloor) return null;
    if (field === 'value') return (g.states.count as number | undefined) ?? 0;
    if (!asked) return 0;
    const states = g.states as Record<string, unknown>;
    const rank = aggregateOf(asked.aggregate).rank;
    // null (an average without events) ranks last
    return rank ? rank(states[asked.aggregate], asked.metric) : 0;
  };
  // with a conversion rate every group's place is needed (rankByBestRow): no top-N cut here
  const limit = query.conversion ? undefined : query.limit;
  if (totalsAreRows && !query.conversion) {
    const byGroup = ranked(
      totals.map((g): [ReportGroup, ReportGroup] => [g, g]),
      metric,
      direction,
      field === 'name',
      limit,
    );
    return (g) => byGroup.get(g);
  }
  const byRow = ranked(
    totals.map((g): [string, ReportGroup] => [g.id, g]),
    metric,
    direction,
    field === 'name',
    limit,
  );
  return byId(query.conversion ? rankByBestRow(totals, byRow) : byRow);
}

function byId(ranks: ReadonlyMap<string, number>): RankOf {
  return (g) => ranks.get(g.id);
}

/**
 * With a conversion rate asked, every row of a set of group fields takes the place of that set's
 * best-ranked row (ranks stay 0, 1, 2, ...): top-N keeps or drops a group with all its names and
 * never cuts the `from` row that carries a kept group's rate.
 */
function rankByBestRow(groups: readonly ReportGroup[], byRow: Map<string, number>): Map<string, number> {
  const best = new Map<string, number>();
  for (const g of groups) {
    const rank = byRow.get(g.id)!;
    if (!(best.get(g.dimsId)! <= rank)) best.set(g.dimsId, rank);
  }
  const place = new Map([...best.entries()].sort((a, b) => a[1] - b[1]).map(([key], i) => [key, i]));
  return new Map(groups.map((g) => [g.id, place.get(g.dimsId)!]));
}

/** Ranks by the conversion rate of each group's totals (its group fields, every name; withheld rows count 0). */
function rankByRate(groups: readonly ReportGroup[], query: ReportQuery): Map<string, number> {
  const totals = conversionTotals(groups, query.conversion!);
  const entries = [...totals.entries()].map(([key, t]) => [key, { name: '', dims: t.dims }] as [string, Named]);
  const rates = new Map(entries.map(([key, g]) => [g, totals.get(key)!.rate]));
  const byGroup = ranked(entries, (g) => rates.get(g)!, query.orderBy!.direction, false);
  // every row of a group, whatever its name, takes the group's rank
  const out = new Map<string, number>();
  for (const g of groups) out.set(g.id, byGroup.get(g.dimsId)!);
  return out;
}

/**
 * Ranks by `metric` (a null metric, e.g. an average without events, always comes last), ties by
 * the group fields. With `limit`, only the first `limit` entries get a rank: a bounded heap of the
 * best so far, which most entries of a long tail leave at one comparison with its root.
 */
function ranked<K, G extends Named>(
  entries: Array<[K, G]>,
  metric: (g: G) => number | bigint | null,
  direction: 'asc' | 'desc',
  byNameOnly: boolean,
  limit?: number,
): Map<K, number> {
  const sign = direction === 'asc' ? 1 : -1;
  type Ranked = { key: K; g: G; m: number | bigint | null };
  const order = (a: Ranked, b: Ranked): number => {
    if (byNameOnly) return sign * byFields(a.g, b.g);
    if (a.m === null || b.m === null) return (a.m === null ? 1 : 0) - (b.m === null ? 1 : 0) || byFields(a.g, b.g);
    // a sum past 2^53 is a bigint: compared with numbers exactly, never subtracted
    return sign * (a.m < b.m ? -1 : a.m > b.m ? 1 : 0) || byFields(a.g, b.g);
  };
  const all = entries.map(([key, g]): Ranked => ({ key, g, m: metric(g) }));
  const ordered = limit === undefined || limit >= all.length ? all.sort(order) : firstOf(all, limit, order);
  return new Map(ordered.map(({ key }, i) => [key, i]));
}

/**
 * The first `limit` items in `order` (which never ties two distinct items), in order: a bounded
 * heap whose root is the last of the best so far, so each item costs at most O(log limit)
 * comparisons whatever the input order (a `limit` of 100,000 over 200,000 groups stays cheap).
 */
function firstOf<T>(items: readonly T[], limit: number, order: (a: T, b: T) => number): T[] {
  const heap: T[] = [];
  if (limit <= 0) return heap;
  // heap[0] is the worst kept: every parent comes after its children in `order`
  const after = (i: number, j: number) => order(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (const item of items) {
    if (heap.length < limit) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!after(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
      continue;
    }
    if (order(item, heap[0]!) >= 0) continue;
    heap[0] = item;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && after(left, worst)) worst = left;
      if (right < heap.length && after(right, worst)) worst = right;
      if (worst === i) break;
      swap(i, worst);
      i = worst;
    }
  }
  return heap.sort(order);
}

/** Per group (its group fields, every row time together): both counts and their rate (null without `from` events). */
function conversionTotals(
  groups: readonly ReportGroup[],
  conversion: Conversion,
): Map<string, { dims: readonly string[]; from: number; to: number; rate: number | null }> {
  const totals = new Map<string, { dims: readonly string[]; from: number; to: number; rate: number | null }>();
  for (const g of groups) {
    let t = totals.get(g.dimsId);
    if (!t) totals.set(g.dimsId, (t = { dims: g.dims, from: 0, to: 0, rate: null }));
    if (g.name === conversion.from) t.from += countOf(g);
    if (g.name === conversion.to) t.to += countOf(g);
  }
  for (const t of totals.values()) t.rate = t.from === 0 ? null : t.to / t.from;
  return totals;
}

function countOf(g: ReportGroup): number {
  return (g.states.count as number | undefined) ?? 0;
}

/** Code-unit order: stable across locales and servers. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

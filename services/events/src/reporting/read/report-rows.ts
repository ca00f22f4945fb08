import { conversionRates } from './conversion-rates';
import { applyCountryFloor } from './country-floor';
import { fillZeros } from './fill-zeros';
import type { ReadPlan } from './read-plan';
import { byFields, rankGroups } from './report-rank';
import { reportRow, type ReportRow } from './report-row';
import { groupTotals, namedGroups, type ReportGroup } from './report-group';
import { TooManyGroupsError } from './report-groups';

/**
 * Shapes merged groups into the response: the country floor first (country-floor.ts: small
 * countries folded, small filtered rows withheld, so nothing after it sees a hidden number);
 * grouped fields as requested, metadata under the caller's keys. Top-N (`limit`) keeps the first
 * groups in `orderBy` order, ranked by their total over the whole range (report-group.ts
 * `groupTotals`; with a conversion rate: sets of group fields, every name); a series fills the
 * missing (time, group) rows with 0 when asked. Rows sort by time, then by `orderBy` rank, or by
 * name then the group fields. The story of the answer, told here top to bottom, each step asked
 * once.
 */
export function toReportRows(merged: readonly ReportGroup[], plan: ReadPlan, maxRows = Infinity): ReportRow[] {
  const { query } = plan;
  const groups = applyCountryFloor(merged, plan);
  const filling = query.series !== undefined && query.fillZeros === true;
  // the group of each name asked without group_by: fill_zeros adds those without events, and
  // they take part in the rank with a total of 0, so top-N and the row order place them as they
  // place any group (never a missing rank compared as NaN)
  const named = filling && query.groupBy.length === 0 ? namedGroups(query.names ?? [], plan.emptyStates) : [];
  // without a series a group has one row: it is its own total, and its rank is found by the row itself
  const totalsAreRows = query.series === undefined;
  const totals = query.orderBy ? (totalsAreRows ? groups : groupTotals(groups, named)) : undefined;
  const rank = totals && rankGroups(totals, plan, totalsAreRows);
  // from every group, before top-N keeps some: a kept row's rate needs its `from` row even when that one is cut
  const rates = query.conversion ? conversionRates(groups, query.conversion) : undefined;
  const inTop = (g: ReportGroup) => query.limit === undefined || !rank || (rank(g) ?? Infinity) < query.limit;
  // without top-N every group is kept: its key is not made for that
  let kept = query.limit !== undefined && rank ? groups.filter(inTop) : [...groups];
  if (filling) kept = fillZeros(kept, plan, maxRows, inTop, named);
  if (kept.length > maxRows) throw new TooManyGroupsError(maxRows, false);
  const sorted = rank
    ? kept
        .map((g) => ({ g, r: rank(g)! }))
        // rows of one rank (a group's names, ranked by conversion rate) by name
        .sort((a, b) => (a.g.time ?? 0) - (b.g.time ?? 0) || a.r - b.r || byFields(a.g, b.g))
        .map((x) => x.g)
    : kept.sort((a, b) => (a.time ?? 0) - (b.time ?? 0) || byFields(a, b));
  return sorted.map((group) => reportRow(group, plan, rates));
}

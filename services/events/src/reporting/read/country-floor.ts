import { countOf } from '../../metrics/uniques-aggregate';
import type { ReadPlan } from './read-plan';
import { withStates, type ReportGroup } from './report-group';
import { ReportGroups } from './report-groups';

/**
 * The country a report shows for the countries folded together under the floor. Never a stored
 * value: stored countries are two upper-case letters, or "" when unknown.
 */
const BELOW_FLOOR = 'below_floor';

/** Whether a stored country names a country (not unknown, not the folded row). */
export function namesCountry(stored: string): boolean {
  return stored !== '' && stored !== BELOW_FLOOR;
}

/**
 * Applies the country floor to a report's merged groups, before anything is ranked, filled or
 * turned into a rate, so every later step sees only what may be shown.
 *
 * A row's visitors are its distinct visitor count (the uniques sketch the read plan adds when the
 * floor applies; past the sketch's exact size, its estimate). A row is small when it has fewer
 * than the floor, 0 included (events stored before visitors were recorded): how many people are
 * behind them is not known. With a conversion rate, a group's `from` and `to` rows of one time are
 * one unit, small when either is: a rate next to a shown `from` row would give the `to` count
 * away, and a folded row's rate must relate the same countries on both sides.
 *
 * - Grouped by country: every row of a small unit that names a country is merged into the row of
 *   the same time, name and other group fields whose country is `below_floor`, with each
 *   aggregate's own merge, so totals stay true and which small countries were reached is not
 *   shown. `unknown` names no country and is never folded; nor is `below_floor` itself.
 * - Filtered by a country code: the rows that could still show a small count of the filter's
 *   countries (every row when not grouped by country, else the `below_floor` rows) are withheld
 *   when their unit is small: empty states, `belowFloor` set (the row shows null numbers).
 */
export function applyCountryFloor(groups: readonly ReportGroup[], plan: ReadPlan): ReportGroup[] {
  const floor = plan.countryFloor;
  if (floor <= 0) return [...groups];
  const { query } = plan;
  const at = query.groupBy.indexOf('country');
  const unitOf = floorUnits(plan);
  let out = [...groups];
  if (at >= 0) {
    const small = smallUnits(out, floor, unitOf);
    // the folded rows are merged as the read merged its parts: by time, name and group fields,
    // with each aggregate's own merge; they hold no more than the rows the read held already
    const folded = new ReportGroups(plan.aggregates, Infinity, false, Infinity, plan.ask);
    out = [];
    for (const g of groups) {
      if (!namesCountry(g.dims[at]!) || !small.has(unitOf(g))) {
        out.push(g);
        continue;
      }
      const slot = folded.slot(
        g.time,
        g.name,
        g.dims.map((d, i) => (i === at ? BELOW_FLOOR : d)),
      );
      plan.aggregates.forEach((name, i) => folded.merge(slot, i, g.states[name]));
    }
    out.push(...folded.groups());
  }
  if (!(query.filters.country ?? []).some(namesCountry)) return out;
  const small = smallUnits(out, floor, unitOf);
  return out.map((g) => {
    if (at >= 0 && g.dims[at] !== BELOW_FLOOR) return g;
    if (!small.has(unitOf(g))) return g;
    return withStates(g, plan.emptyStates, true);
  });
}

/** A row's distinct visitors: exact while the sketch is, else its estimate. */
function visitorsOf(g: ReportGroup): number {
  const state = g.states.uniques;
  return state ? countOf(state).value : 0;
}

/** The unit a row is judged in: itself, or with a conversion rate its time and group fields' from and to rows together. */
function floorUnits(plan: ReadPlan): (g: ReportGroup) => string {
  const conversion = plan.query.conversion;
  return (g) =>
    conversion && (g.name === conversion.from || g.name === conversion.to)
      ? `pair ${g.time ?? ''}|${g.dimsId}`
      : `row ${g.time ?? ''}|${g.id}`;
}

function smallUnits(groups: readonly ReportGroup[], floor: number, unitOf: (g: ReportGroup) => string): Set<string> {
  const small = new Set<string>();
  for (const g of groups) if (visitorsOf(g) < floor) small.add(unitOf(g));
  return small;
}

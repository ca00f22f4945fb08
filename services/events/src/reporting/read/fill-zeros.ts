import type { ReadPlan } from './read-plan';
import { emptyStates, identity, TooManyGroupsError, type ReportGroup } from './report-groups';
import { namesCountry } from './country-floor';

/**
 * Every group seen (and, without group_by, every requested name) in every row time. Under the
 * country floor a country's missing rows are withheld rather than 0: a country with no row in a
 * bucket may have been folded there, and a 0 would be false (and tell a folded country from one
 * with no visitors at all).
 */
export function fillZeros(groups: ReportGroup[], plan: ReadPlan, maxRows: number): ReportGroup[] {
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

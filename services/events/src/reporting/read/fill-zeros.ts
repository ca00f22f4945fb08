import type { ReadPlan } from './read-plan';
import type { ReportGroup } from './report-group';
import { TooManyGroupsError } from './report-groups';
import { namesCountry } from './country-floor';

/**
 * Every group seen (and `named`, the group of each name asked without group_by, where top-N keeps
 * it) in every row time. Under the country floor a country's missing rows are withheld rather
 * than 0: a country with no row in a bucket may have been folded there, and a 0 would be false
 * (and tell a folded country from one with no visitors at all).
 */
export function fillZeros(
  groups: ReportGroup[],
  plan: ReadPlan,
  maxRows: number,
  inTop: (g: ReportGroup) => boolean,
  named: readonly ReportGroup[],
): ReportGroup[] {
  const { query } = plan;
  const at = plan.countryFloor > 0 ? query.groupBy.indexOf('country') : -1;
  // every identity once: a group seen (its first row), or a name asked without group_by
  const ids = new Map<string, ReportGroup>();
  for (const g of groups) if (!ids.has(g.id)) ids.set(g.id, g);
  // a name top-N cut stays cut, events or not
  for (const n of named) if (!ids.has(n.id) && inTop(n)) ids.set(n.id, n);
  // checked before filling: buckets x groups can be far more than the cap
  if ((query.series?.length ?? 0) * ids.size > maxRows) throw new TooManyGroupsError(maxRows, false);
  const present = new Set(groups.map((g) => `${g.time}|${g.id}`));
  const out = [...groups];
  for (const bucket of query.series ?? []) {
    for (const [id, z] of ids) {
      if (present.has(`${bucket.time}|${id}`)) continue;
      const filled: ReportGroup = {
        name: z.name,
        dims: z.dims,
        id,
        dimsId: z.dimsId,
        states: plan.emptyStates,
        time: bucket.time,
      };
      if (at >= 0 && namesCountry(z.dims[at]!)) filled.belowFloor = true;
      out.push(filled);
    }
  }
  return out;
}

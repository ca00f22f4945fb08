import type { Conversion } from '../request/report-query';
import type { ReportGroup } from './report-group';

function countOf(g: ReportGroup): number {
  return (g.states.count as number | undefined) ?? 0;
}

/**
 * Conversion rate: in each group and row time, the count of `to` events over the count of `from`
 * events. It is carried by the `from` row (a group with impressions and no clicks has the rate 0;
 * a group without impressions has no rate), so every defined rate has a row to stand on.
 */
export function conversionRates(
  groups: readonly ReportGroup[],
  conversion: Conversion,
): (g: ReportGroup) => number | undefined {
  const converted = new Map<string, number>();
  for (const g of groups) if (g.name === conversion.to) converted.set(`${g.time ?? ''}|${g.dimsId}`, countOf(g));
  return (g) => {
    if (g.name !== conversion.from || countOf(g) === 0) return undefined;
    return (converted.get(`${g.time ?? ''}|${g.dimsId}`) ?? 0) / countOf(g);
  };
}

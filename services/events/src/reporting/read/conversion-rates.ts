import type { GroupCount } from './count-source';
import { groupKey } from './group-accumulator';
import type { Conversion, GroupField } from '../request/report-query';

/**
 * Conversion rate: in each group and row time, the count of `to` events over the count of `from`
 * events. It is carried by the `from` row (a group with impressions and no clicks has the rate 0;
 * a group without impressions has no rate), so every defined rate has a row to stand on.
 */
export function conversionRates(
  groups: readonly GroupCount[],
  conversion: Conversion,
  groupBy: readonly GroupField[],
): (g: GroupCount) => number | undefined {
  const converted = new Map<string, number>();
  for (const g of groups) {
    if (g.name === conversion.to) converted.set(slot(g, g.time, groupBy), g.value);
  }
  return (g) => {
    if (g.name !== conversion.from || g.value === 0) return undefined;
    return (converted.get(slot(g, g.time, groupBy)) ?? 0) / g.value;
  };
}

/** Per group (its group fields, every row time together): both counts and their rate (null without `from` events). */
export function conversionTotals(
  groups: readonly GroupCount[],
  conversion: Conversion,
  groupBy: readonly GroupField[],
): Map<string, { group: GroupCount; from: number; to: number; rate: number | null }> {
  const totals = new Map<string, { group: GroupCount; from: number; to: number; rate: number | null }>();
  for (const g of groups) {
    const key = slot(g, undefined, groupBy);
    let t = totals.get(key);
    if (!t) {
      t = { group: { name: '', content_id: g.content_id, url: g.url, value: 0 }, from: 0, to: 0, rate: null };
      totals.set(key, t);
    }
    if (g.name === conversion.from) t.from += g.value;
    if (g.name === conversion.to) t.to += g.value;
  }
  for (const t of totals.values()) t.rate = t.from === 0 ? null : t.to / t.from;
  return totals;
}

/** A group's place without its name: the fields it is grouped by, and its row time. */
function slot(g: GroupCount, time: number | undefined, groupBy: readonly GroupField[]): string {
  return groupKey({
    time,
    name: '',
    content_id: groupBy.includes('content_id') ? g.content_id : undefined,
    url: groupBy.includes('url') ? g.url : undefined,
  });
}

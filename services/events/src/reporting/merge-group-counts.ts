import type { GroupCount, LatestEvent } from './count-source';

/**
 * Merges the partial groups of several buckets (or sources): counts add up, metadata comes
 * from the latest event of the group across all of them.
 */
export function mergeGroupCounts(partials: readonly GroupCount[][]): GroupCount[] {
  const merged = new Map<string, GroupCount>();
  for (const groups of partials) {
    for (const group of groups) {
      const key = JSON.stringify([group.name, group.content_id ?? null, group.url ?? null]);
      const seen = merged.get(key);
      if (!seen) {
        merged.set(key, { ...group });
        continue;
      }
      seen.value += group.value;
      if (group.latest && (!seen.latest || isLater(group.latest, seen.latest))) seen.latest = group.latest;
    }
  }
  return [...merged.values()];
}

/** Same order as the pipeline's `$max`: created first, then the time-ordered event id. */
export function isLater(a: LatestEvent, b: LatestEvent): boolean {
  const dt = a.created.getTime() - b.created.getTime();
  return dt !== 0 ? dt > 0 : a.id > b.id;
}

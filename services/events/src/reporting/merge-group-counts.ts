import type { GroupCount } from './count-source';
import { GroupAccumulator } from './group-accumulator';

export { isLater } from './group-accumulator';

/**
 * Merges the partial groups of several buckets (or sources): counts add up, metadata comes
 * from the latest event of the group across all of them. Series rows merge per `time`.
 */
export function mergeGroupCounts(partials: readonly GroupCount[][]): GroupCount[] {
  const acc = new GroupAccumulator();
  for (const groups of partials) for (const group of groups) acc.add(group);
  return acc.groups();
}

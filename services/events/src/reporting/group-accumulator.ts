import { ValidationError } from '@cm/platform';
import type { GroupCount, LatestEvent } from './count-source';

/** A report over more groups than it may hold: a 400 naming the cap and what to do instead. */
export class TooManyGroupsError extends ValidationError {
  constructor(readonly cap: number, ranked: boolean) {
    super(`the report has more than ${cap} groups`, [
      {
        field: 'group_by',
        message: ranked
          ? `more than ${cap} groups to rank; narrow the report with a filter (name, url, content_id, device_type) or a shorter range`
          : `more than ${cap} groups (rows); ask for the top groups with \`limit\`, or narrow the report with a filter (name, url, content_id, device_type) or a shorter range`,
      },
    ]);
  }
}

/**
 * Merges partial groups of any origin (day buckets, rollup cells) as they stream in: counts add
 * up, metadata comes from the group's latest event, and the merge stops with TooManyGroupsError
 * as soon as it would hold more than `maxGroups` groups, so memory is bounded by the cap, not by
 * what the store returns.
 */
export class GroupAccumulator {
  private readonly merged = new Map<string, GroupCount>();

  constructor(private readonly maxGroups = Infinity, private readonly ranked = false) {}

  add(group: GroupCount): void {
    const key = JSON.stringify([group.time ?? null, group.name, group.content_id ?? null, group.url ?? null]);
    const seen = this.merged.get(key);
    if (!seen) {
      if (this.merged.size >= this.maxGroups) throw new TooManyGroupsError(this.maxGroups, this.ranked);
      this.merged.set(key, { ...group });
      return;
    }
    seen.value += group.value;
    if (group.latest && (!seen.latest || isLater(group.latest, seen.latest))) seen.latest = group.latest;
  }

  groups(): GroupCount[] {
    return [...this.merged.values()];
  }
}

/** Same order as the pipeline's `$max`: created first, then the time-ordered event id. */
export function isLater(a: LatestEvent, b: LatestEvent): boolean {
  const dt = a.created.getTime() - b.created.getTime();
  return dt !== 0 ? dt > 0 : a.id > b.id;
}

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
    this.addParts(group.time, group.name, group.content_id, group.url, group.value, group.latest);
  }

  /** The same without a GroupCount per partial: the hot path of rollup cells (a group object only when new). */
  addParts(time: number | undefined, name: string, contentId: string | undefined, url: string | undefined, value: number, latest?: LatestEvent): void {
    const key = keyOf(time, name, contentId, url);
    const seen = this.merged.get(key);
    if (!seen) {
      if (this.merged.size >= this.maxGroups) throw new TooManyGroupsError(this.maxGroups, this.ranked);
      const group: GroupCount = { name, value };
      if (contentId !== undefined) group.content_id = contentId;
      if (url !== undefined) group.url = url;
      if (latest) group.latest = latest;
      if (time !== undefined) group.time = time;
      this.merged.set(key, group);
      return;
    }
    seen.value += value;
    if (latest && (!seen.latest || isLater(latest, seen.latest))) seen.latest = latest;
  }

  groups(): GroupCount[] {
    return [...this.merged.values()];
  }
}

/**
 * A group's identity as one string: length-prefixed parts, so no value (a NUL or a separator
 * inside a url) can make two groups collide, and cheaper than JSON on the hot path of a report.
 */
export function groupKey(group: Pick<GroupCount, 'time' | 'name' | 'content_id' | 'url'>): string {
  return keyOf(group.time, group.name, group.content_id, group.url);
}

function keyOf(time: number | undefined, name: string | undefined, contentId: string | undefined, url: string | undefined): string {
  return `${time ?? ''}|${part(name)}${part(contentId)}${part(url)}`;
}

function part(value: string | undefined): string {
  return value === undefined ? '~' : `${value.length}:${value}`;
}

/** Same order as the pipeline's `$max`: created first, then the time-ordered event id. */
export function isLater(a: LatestEvent, b: LatestEvent): boolean {
  const dt = a.created.getTime() - b.created.getTime();
  return dt !== 0 ? dt > 0 : a.id > b.id;
}

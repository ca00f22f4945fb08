import { ValidationError } from '@cm/platform';
import { countAggregate } from '../../rollups/aggregates/count-aggregate';
import {
  emptySketch,
  mergeInto,
  mergeSketches,
  sketchBytes,
  type DistinctSketch,
} from '../../sketches/distinct-sketch';
import { isLaterEvent } from '../../storage/event-order';
import { mergeSums } from '../../rollups/aggregates/sums-aggregate';
import {
  mergeAllQuantileParts,
  quantilePartsBytes,
  type QuantileParts,
} from '../../rollups/aggregates/quantiles-aggregate';
import type { GroupCount, GroupParts, LatestEvent } from './count-source';
import { MAX_GROUP_BYTES, SUMS_BYTES, groupBytes, latestBytes } from './group-size';

/** A report over more groups than it may hold: a 400 naming the cap and what to do instead. */
export class TooManyGroupsError extends ValidationError {
  constructor(
    readonly cap: number,
    ranked: boolean,
  ) {
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

/** A report whose groups would take more memory than a report may hold: the same 400 as the group cap, naming the bound. */
export class GroupsTooLargeError extends ValidationError {
  constructor(readonly maxBytes: number) {
    const mib = Math.round((maxBytes / (1024 * 1024)) * 10) / 10;
    super(`the report's groups take more than ${mib} MiB`, [
      {
        field: 'group_by',
        message: `the groups (their urls, content ids and metadata values) take more than ${mib} MiB; narrow the report with a filter (name, url, content_id, device_type), a shorter range or fewer metadata keys`,
      },
    ]);
  }
}

/**
 * Merges partial groups of any origin (day buckets, rollup cells) as they stream in: counts add
 * up, metadata comes from the group's latest event, visitor sketches merge, and the merge stops with TooManyGroupsError
 * as soon as it would hold more than `maxGroups` groups, or with GroupsTooLargeError once their
 * estimated size passes `maxBytes` (long urls and metadata values make few groups large), so
 * memory is bounded by the caps, not by what the store returns.
 */
export class GroupAccumulator {
  private readonly merged = new Map<string, GroupCount>();
  /** A group's quantile parts, merged in one pass when the groups are taken (no sketch per part). */
  private readonly quantiles = new Map<GroupCount, QuantileParts[]>();
  private held = 0;

  constructor(
    private readonly maxGroups = Infinity,
    private readonly ranked = false,
    private readonly maxBytes = MAX_GROUP_BYTES,
  ) {}

  /** Estimated bytes of the groups merged so far. */
  get bytes(): number {
    return this.held;
  }

  add(group: GroupCount): void {
    this.addParts(group.time, group.name, group.content_id, group.url, group.value, group);
  }

  /**
   * The same without a GroupCount per partial: the hot path of rollup cells (a group object only
   * when new; `parts` only when the report asks for more than counts).
   */
  addParts(
    time: number | undefined,
    name: string,
    contentId: string | undefined,
    url: string | undefined,
    value: number,
    parts?: GroupParts,
  ): void {
    const key = keyOf(time, name, contentId, url);
    const seen = this.merged.get(key);
    if (!seen) {
      if (this.merged.size >= this.maxGroups) throw new TooManyGroupsError(this.maxGroups, this.ranked);
      this.hold(groupBytes(key.length, name, contentId, url, parts?.latest));
      const group: GroupCount = { name, value };
      if (contentId !== undefined) group.content_id = contentId;
      if (url !== undefined) group.url = url;
      if (time !== undefined) group.time = time;
      if (parts) this.firstParts(group, parts);
      this.merged.set(key, group);
      return;
    }
    seen.value = countAggregate.merge(seen.value, value);
    if (parts) this.mergeParts(seen, parts);
  }

  private firstParts(group: GroupCount, { latest, uniques, sums, quantiles }: GroupParts): void {
    if (latest) group.latest = latest;
    if (uniques) {
      // a copy the group owns: later partials merge into it in place
      group.uniques = ownedCopy(uniques);
      this.hold(sketchBytes(group.uniques));
    }
    if (sums) {
      this.hold(SUMS_BYTES);
      group.sums = sums;
    }
    if (quantiles) {
      this.hold(quantilePartsBytes(quantiles));
      this.quantiles.set(group, [quantiles]);
    }
  }

  private mergeParts(seen: GroupCount, { latest, uniques, sums, quantiles }: GroupParts): void {
    if (uniques) {
      const before = seen.uniques ? sketchBytes(seen.uniques) : 0;
      seen.uniques = seen.uniques ? mergeInto(seen.uniques, uniques) : ownedCopy(uniques);
      this.hold(sketchBytes(seen.uniques) - before);
    }
    if (sums) {
      if (!seen.sums) this.hold(SUMS_BYTES);
      seen.sums = seen.sums ? mergeSums(seen.sums, sums) : sums;
    }
    if (quantiles) {
      // counted as held until the merge: an upper bound of the merged sketches
      this.hold(quantilePartsBytes(quantiles));
      const held = this.quantiles.get(seen);
      if (held) held.push(quantiles);
      else this.quantiles.set(seen, [quantiles]);
    }
    if (latest && (!seen.latest || isLater(latest, seen.latest))) {
      // metadata values of the newer event may be longer
      this.hold(latestBytes(latest) - latestBytes(seen.latest));
      seen.latest = latest;
    }
  }

  private hold(bytes: number): void {
    if (this.held + bytes > this.maxBytes) throw new GroupsTooLargeError(this.maxBytes);
    this.held += bytes;
  }

  groups(): GroupCount[] {
    for (const [group, parts] of this.quantiles) group.quantiles = mergeAllQuantileParts(parts);
    this.quantiles.clear();
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

function keyOf(
  time: number | undefined,
  name: string | undefined,
  contentId: string | undefined,
  url: string | undefined,
): string {
  return `${time ?? ''}|${part(name)}${part(contentId)}${part(url)}`;
}

function part(value: string | undefined): string {
  return value === undefined ? '~' : `${value.length}:${value}`;
}

/** Whether `a` is the later event (isLaterEvent: the same order as the pipeline's `$max`). */
export function isLater(a: LatestEvent, b: LatestEvent): boolean {
  return isLaterEvent(a.created.getTime(), a.id, b.created.getTime(), b.id);
}

/**
 * A sketch the group may merge into in place (a partial may be shared: a decoded cell entry, the
 * empty sketch): the pure merge gives registers of its own, and exact sets are never written.
 */
function ownedCopy(s: DistinctSketch): DistinctSketch {
  return mergeSketches(s, emptySketch());
}

import { ValidationError } from '@cm/platform';
import { aggregateOf, type AggregateName, type GroupStates } from '../../metrics/registry';
import { GROUP_OVERHEAD_BYTES, MAX_GROUP_BYTES } from './group-size';

/** One group of a report: its row time (series), name, group_by values (as stored) and the merged states. */
export interface ReportGroup {
  time?: number;
  name: string;
  dims: readonly string[];
  states: GroupStates;
}

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
          ? `more than ${cap} groups to rank; narrow the report with a filter (name, a dimension, device_type) or a shorter range`
          : `more than ${cap} groups (rows); ask for the top groups with \`limit\`, or narrow the report with a filter (name, a dimension, device_type) or a shorter range`,
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
        message: `the groups (their dimension values, metadata and visitor or measure sketches) take more than ${mib} MiB; narrow the report with a filter (name, a dimension, device_type), a shorter range or fewer metadata keys`,
      },
    ]);
  }
}

/**
 * Merges parts of any origin (rollup cell entries, raw rows) into the report's groups as they
 * stream in: each aggregate's part merged into the group's own state in place (the first part of
 * a group copied), so a group's memory is its states', never its parts'. The merge stops with
 * TooManyGroupsError as soon as it would hold more than `maxGroups` groups, or with
 * GroupsTooLargeError once their estimated size passes `maxBytes`.
 */
export class ReportGroups {
  private readonly merged = new Map<string, ReportGroup>();
  /** Per group, the bytes last counted for each aggregate's state (registry order of `aggregates`). */
  private readonly sizes = new Map<ReportGroup, number[]>();
  private readonly slot: Partial<Record<AggregateName, number>> = {};
  private held = 0;

  constructor(
    private readonly aggregates: readonly AggregateName[],
    private readonly maxGroups = Infinity,
    private readonly ranked = false,
    private readonly maxBytes = MAX_GROUP_BYTES,
  ) {
    aggregates.forEach((name, i) => (this.slot[name] = i));
  }

  get bytes(): number {
    return this.held;
  }

  /** The group of this row time, name and group values (made when new, within the caps). */
  group(time: number | undefined, name: string, dims: readonly string[]): ReportGroup {
    const key = groupKey(time, name, dims);
    const seen = this.merged.get(key);
    if (seen) return seen;
    if (this.merged.size >= this.maxGroups) throw new TooManyGroupsError(this.maxGroups, this.ranked);
    let bytes = GROUP_OVERHEAD_BYTES + 2 * key.length;
    for (const d of dims) bytes += d.length;
    this.hold(bytes);
    const group: ReportGroup = { name, dims: [...dims], states: {} };
    if (time !== undefined) group.time = time;
    this.merged.set(key, group);
    this.sizes.set(group, new Array<number>(this.aggregates.length).fill(0));
    return group;
  }

  /** One aggregate's part merged into the group (the part may be shared: it is never kept). */
  merge(group: ReportGroup, name: AggregateName, part: unknown): void {
    const aggregate = aggregateOf(name);
    const states = group.states as Record<string, unknown>;
    const before = states[name];
    const after = before === undefined ? aggregate.own(part) : aggregate.mergeInto(before, part);
    states[name] = after;
    const sizes = this.sizes.get(group)!;
    const i = this.slot[name]!;
    const size = aggregate.bytes(after);
    if (size !== sizes[i]) {
      this.hold(size - sizes[i]!);
      sizes[i] = size;
    }
  }

  groups(): ReportGroup[] {
    const out = [...this.merged.values()];
    // every group has every asked aggregate, empty where no part had it
    for (const g of out) {
      const states = g.states as Record<string, unknown>;
      for (const name of this.aggregates) states[name] ??= aggregateOf(name).empty();
    }
    return out;
  }

  private hold(bytes: number): void {
    if (this.held + bytes > this.maxBytes) throw new GroupsTooLargeError(this.maxBytes);
    this.held += bytes;
  }
}

/**
 * A group's identity as one string: length-prefixed parts, so no value (a NUL or a separator
 * inside a url) can make two groups collide, and cheaper than JSON on the hot path of a report.
 */
export function groupKey(time: number | undefined, name: string, dims: readonly string[]): string {
  let key = `${time ?? ''}|${name.length}:${name}`;
  for (const d of dims) key += `${d.length}:${d}`;
  return key;
}

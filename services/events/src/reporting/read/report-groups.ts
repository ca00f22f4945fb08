import { ValidationError } from '@cm/platform';
import type { Aggregate, ReportAsk } from '../../metrics/aggregate';
import { aggregateOf, reportMergeInto, reportOwn, type AggregateName, type GroupStates } from '../../metrics/registry';
import { PositionIndex } from '../../sketches/position-index';
import { GROUP_OVERHEAD_BYTES, MAX_GROUP_BYTES } from './group-size';
import { reportGroup, type ReportGroup } from './report-group';
import { StringIds } from './string-ids';

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
class GroupsTooLargeError extends ValidationError {
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
 * A group being merged, by its place in the report's groups (0, 1, 2... in the order they were
 * made): its row time, name, group values and each asked aggregate's state are kept in columns
 * by that place, so a merge reaches a group's state in one step, not through an object per group.
 * It becomes the answer's group (report-group.ts) once the merge is done (`groups`).
 */
export type GroupSlot = number;

/** A group's key within one report (ReportGroups.key). */
export type GroupKey = number | string;

/** Each part of a packed key takes this many values (21 bits); the packed key stays below 2^53. */
const ID_SPAN = 2 ** 21;
const PACKED_LIMIT = 2 ** 53;

/**
 * Merges parts of any origin (rollup cell entries, raw rows) into the report's groups as they
 * stream in: each aggregate's part merged into the group's own state in place (a group's first
 * part taken as the aggregate's reportOwn takes it: held as it is where it is never written,
 * else copied), so a group's memory is its states' (a state that holds parts by reference, as
 * the visitor accumulator does, counts them as its own). The merge stops with TooManyGroupsError
 * as soon as it would hold more than `maxGroups` groups, or with GroupsTooLargeError once their
 * estimated size passes `maxBytes`.
 */
export class ReportGroups {
  /** Per group (by slot): its row time, name and group values. */
  private readonly times: Array<number | undefined> = [];
  private readonly nameOf: string[] = [];
  private readonly dimsOf: string[][] = [];
  /** Per asked aggregate, per group: its state (undefined until a part has it), and the bytes last counted for it. */
  private readonly states: unknown[][];
  private readonly sizes: number[][];
  /** Groups found by a packed number key (the index's positions to slots), or by a string key past 53 bits. */
  private readonly byNumber = new PositionIndex();
  private readonly numbered: number[] = [];
  private readonly byString = new Map<string, GroupSlot>();
  /** Row times seen, each given a small number from 1 (0: no time) for the keys. */
  private readonly timeIds = new Map<number, number>();
  private readonly aggregates: ReadonlyArray<Aggregate<unknown>>;
  /** Per asked aggregate, whether its states are numbers that add (Aggregate.additive). */
  private readonly additive: readonly boolean[];
  private held = 0;

  constructor(
    private readonly names: readonly AggregateName[],
    private readonly maxGroups = Infinity,
    private readonly ranked = false,
    private readonly maxBytes = MAX_GROUP_BYTES,
    /** The report's ask: an aggregate may leave out of a group what the report does not ask for. */
    private readonly ask?: ReportAsk,
    /**
     * Strings (names, group values) as small numbers: cheap keys for cell entries. The process's
     * shared table (SharedStringIds), whose numbers a cached page keeps, or one of its own.
     */
    readonly strings: StringIds = new StringIds(),
  ) {
    this.aggregates = names.map(aggregateOf);
    this.additive = this.aggregates.map((a) => a.additive === true);
    this.states = names.map(() => []);
    this.sizes = names.map(() => []);
  }

  get bytes(): number {
    return this.held;
  }

  /** A small number for a string (the same for the same string within the report). */
  intern(value: string): number {
    return this.strings.id(value);
  }

  /**
   * A group's key from its row time and the interned numbers of its name and group values: one
   * number while they fit in 53 bits (every report of a few million strings), else a string of
   * them. A report's groups all have as many values, so either form names one group only, and the
   * same group always gets the same form. Cell entries and raw rows meet in the same groups this way.
   */
  key(time: number | undefined, nameId: number, ids: readonly number[]): GroupKey {
    let timeId = 0;
    if (time !== undefined) {
      const known = this.timeIds.get(time);
      if (known === undefined) this.timeIds.set(time, (timeId = this.timeIds.size + 1));
      else timeId = known;
    }
    let key = timeId;
    let fits = nameId < ID_SPAN && key < PACKED_LIMIT / ID_SPAN;
    if (fits) key = key * ID_SPAN + nameId;
    for (let j = 0; j < ids.length && fits; j++) {
      fits = ids[j]! < ID_SPAN && key < PACKED_LIMIT / ID_SPAN;
      if (fits) key = key * ID_SPAN + ids[j]!;
    }
    return fits ? key : `${timeId}|${nameId},${ids.join(',')}`;
  }

  /** The slot of a key (`key`), or undefined when new. */
  find(key: GroupKey): GroupSlot | undefined {
    if (typeof key !== 'number') return this.byString.get(key);
    const at = this.byNumber.get(key);
    return at === undefined ? undefined : this.numbered[at];
  }

  /** A new group under `key` (within the caps), taking `dims` as its own (the caller never changes them). */
  create(key: GroupKey, time: number | undefined, name: string, dims: string[]): GroupSlot {
    const slot = this.nameOf.length;
    if (slot >= this.maxGroups) throw new TooManyGroupsError(this.maxGroups, this.ranked);
    let bytes = GROUP_OVERHEAD_BYTES + (typeof key === 'string' ? 2 * key.length : 8) + name.length;
    for (const d of dims) bytes += d.length;
    this.hold(bytes);
    this.times.push(time);
    this.nameOf.push(name);
    this.dimsOf.push(dims);
    // pushed, not set past the end: the columns stay packed (a hole makes every read check for one)
    for (let i = 0; i < this.names.length; i++) {
      this.states[i]!.push(undefined);
      this.sizes[i]!.push(0);
    }
    if (typeof key === 'number') this.numbered[this.byNumber.add(key)] = slot;
    else this.byString.set(key, slot);
    return slot;
  }

  /** The group of this row time, name and group values (a raw row's: interned, then found or made). */
  slot(time: number | undefined, name: string, dims: readonly string[]): GroupSlot {
    const key = this.key(
      time,
      this.intern(name),
      dims.map((d) => this.intern(d)),
    );
    // a copy for a new group: a raw read fills one list for every row
    return this.find(key) ?? this.create(key, time, name, [...dims]);
  }

  /** The `i`-th asked aggregate's part merged into the group (the part may be shared: it is never kept). */
  merge(slot: GroupSlot, i: number, part: unknown): void {
    const states = this.states[i]!;
    const before = states[slot];
    if (this.additive[i]) {
      states[slot] = before === undefined ? part : (before as number) + (part as number);
      return;
    }
    const aggregate = this.aggregates[i]!;
    const after =
      before === undefined ? reportOwn(aggregate, part, this.ask) : reportMergeInto(aggregate, before, part, this.ask);
    states[slot] = after;
    const sizes = this.sizes[i]!;
    const size = aggregate.bytes(after);
    if (size !== sizes[slot]) {
      this.hold(size - sizes[slot]!);
      sizes[slot] = size;
    }
  }

  groups(): ReportGroup[] {
    const out: ReportGroup[] = [];
    // every group has every asked aggregate, empty where no part had it
    for (let slot = 0; slot < this.nameOf.length; slot++) {
      const states: Record<string, unknown> = {};
      for (let i = 0; i < this.names.length; i++)
        states[this.names[i]!] = this.states[i]![slot] ?? this.aggregates[i]!.empty();
      out.push(reportGroup(this.nameOf[slot]!, this.dimsOf[slot]!, states as GroupStates, this.times[slot]));
    }
    return out;
  }

  private hold(bytes: number): void {
    if (this.held + bytes > this.maxBytes) throw new GroupsTooLargeError(this.maxBytes);
    this.held += bytes;
  }
}

import type { DistinctSketch } from '../sketches/distinct-sketch';
import type { Aggregate } from './aggregate';
import { AGGREGATE_NAMES, aggregateOf, type AggregateName, type CellValue, type RowStates } from './registry';

/** `BuilderCell.device` before any event, and once the entry has events on more than one device. */
const NONE = -1;
const MANY = 3;

const BIT = Object.fromEntries(AGGREGATE_NAMES.map((name, i) => [name, 1 << i])) as Record<AggregateName, number>;

/** Each aggregate's empty state, made once and shared: read, never merged into. */
const SHARED_EMPTY = Object.fromEntries(
  AGGREGATE_NAMES.map((name) => [name, Object.freeze(aggregateOf(name).empty())]),
) as Record<AggregateName, unknown>;
/** Per aggregate, its states on every device while no event reached any: one frozen array, shared. */
const UNTOUCHED = Object.fromEntries(
  AGGREGATE_NAMES.map((name) => [name, Object.freeze([SHARED_EMPTY[name], SHARED_EMPTY[name], SHARED_EMPTY[name]])]),
) as Record<AggregateName, readonly unknown[]>;

type Slots = Record<AggregateName, unknown>;

/**
 * One entry of a rollup builder's table, merged in place and held as small as its events allow:
 * a unit's entries are mostly one or a few events on one device (a flood of distinct urls is
 * nothing else), and a table may hold a hundred thousand of them. Per aggregate one slot:
 * nothing until an event reaches it; while every event is on one device, that device's state
 * itself (no array per device), and while nothing was merged into it, the aggregate's `compact`
 * form (a visitor hash instead of a sketch, an event id instead of a latest event); once events
 * are on several devices, an array of one state per device. An aggregate stored as the union of
 * its devices (`folded`) always holds that union in its one slot. Read it as a cell through
 * `value()`, which makes the per-device form the stored pages are written from.
 */
export class BuilderCell {
  /** NONE before any event, the one device (0..2) of every event so far, or MANY. */
  private device = NONE;
  /** A bit per aggregate (registry order) whose slot holds its `compact` form. */
  private compacted = 0;
  count: unknown = undefined;
  latest: unknown = undefined;
  uniques: unknown = undefined;
  sums: unknown = undefined;
  quantiles: unknown = undefined;
  frequency: unknown = undefined;

  /**
   * One hour-pipeline row's states on its device, for the aggregates `kept` (a family's): nothing
   * is made for another device, an aggregate the family does not keep or a state the row does
   * not have, and a new state takes the row's own when no other entry took it (`unclaimed`).
   */
  mergeRow(states: RowStates, device: number, kept: readonly AggregateName[]): void {
    const source = states as unknown as Slots;
    for (const name of kept) {
      const aggregate = aggregateOf(name);
      const state = source[name];
      const bit = BIT[name];
      // a compact form (never empty) is shared by every entry that holds it as it is
      if (states.compact & bit) this.mergeState(name, aggregate, state, device, false, true);
      else if (aggregate.isEmpty(state)) continue;
      else if (this.mergeState(name, aggregate, state, device, (states.unclaimed & bit) !== 0))
        states.unclaimed &= ~bit;
    }
  }

  /** `part` (a page's entry, left as it is and possibly shared) for the aggregates `kept`. */
  mergeCell(part: CellValue, kept: readonly AggregateName[]): void {
    const source = part as unknown as Record<AggregateName, readonly unknown[]>;
    for (const name of kept) {
      const aggregate = aggregateOf(name);
      const states = source[name];
      for (let d = 0; d < 3; d++) {
        const state = states[d];
        if (!aggregate.isEmpty(state)) this.mergeState(name, aggregate, state, d, false);
      }
    }
  }

  /**
   * The entry as a cell (one state per device), made for this call: what the page writer reads.
   * States no event reached are shared empty ones; a per-device array may be the entry's own
   * (read it only).
   */
  value(): CellValue {
    const slots = this as unknown as Slots;
    const out = {} as Record<AggregateName, readonly unknown[]>;
    const at = this.device === MANY ? firstDevice(this.count as readonly number[]) : Math.max(this.device, 0);
    for (const name of AGGREGATE_NAMES) {
      const held = slots[name];
      if (held === undefined) {
        out[name] = UNTOUCHED[name];
        continue;
      }
      const aggregate = aggregateOf(name);
      if (this.device === MANY && aggregate.storage !== 'folded') {
        out[name] = held as readonly unknown[];
        continue;
      }
      const empty = SHARED_EMPTY[name];
      const devices = [empty, empty, empty];
      devices[at] = this.compacted & BIT[name] ? aggregate.expand!(held) : held;
      out[name] = devices;
    }
    return out as unknown as CellValue;
  }

  /**
   * The hashes of the exact visitor sets of this entry's `uniques` (the union, or each device's),
   * read from the slot as held: a single visitor's hash goes to `singles`, a set's sorted hashes
   * to `lists`. What an owner's visitor dictionary needs (owner-pages.ts), without making the cell.
   */
  exactVisitors(singles: number[], lists: Array<ArrayLike<number>>): void {
    const held = this.uniques;
    if (held === undefined) return;
    if (this.compacted & BIT.uniques) {
      singles.push(held as number);
      return;
    }
    const states = this.device === MANY ? (held as readonly DistinctSketch[]) : [held as DistinctSketch];
    for (const state of states) if (state.kind === 'exact' && state.hashes.length > 0) lists.push(state.hashes);
  }

  /**
   * `part` (on device `d`; not empty) into the slot of `name`: its first state there is its
   * compact form, else `part` itself when `take` (the caller gives it up), else `own(part)`;
   * later ones are merged into it. Returns whether `part` was taken. `compact`: `part` is a
   * compact form (`compactOfRow`), held as it is or expanded.
   */
  private mergeState(
    name: AggregateName,
    aggregate: Aggregate<unknown>,
    part: unknown,
    d: number,
    take: boolean,
    compact = false,
  ): boolean {
    const slots = this as unknown as Slots;
    if (aggregate.storage !== 'folded') {
      if (this.device === NONE) this.device = d;
      else if (this.device !== d && this.device !== MANY) this.spread();
    }
    if (this.device === MANY && aggregate.storage !== 'folded') {
      const empty = SHARED_EMPTY[name];
      let devices = slots[name] as unknown[] | undefined;
      if (devices === undefined) slots[name] = devices = [empty, empty, empty];
      const held = devices[d];
      if (held === empty) {
        devices[d] = compact ? aggregate.expand!(part) : take ? part : aggregate.own(part);
        return take;
      }
      devices[d] = aggregate.mergeInto(held, compact ? aggregate.expand!(part) : part);
      return false;
    }
    const held = slots[name];
    if (held === undefined) {
      const form = compact ? part : aggregate.compact?.(part);
      if (form !== undefined) {
        slots[name] = form;
        this.compacted |= BIT[name];
        return false;
      }
      slots[name] = take ? part : aggregate.own(part);
      return take;
    }
    slots[name] = aggregate.mergeInto(this.owned(name, aggregate, held), compact ? aggregate.expand!(part) : part);
    return false;
  }

  /** The state a slot holds, expanded from its compact form (then no longer compact). */
  private owned(name: AggregateName, aggregate: Aggregate<unknown>, held: unknown): unknown {
    const bit = BIT[name];
    if (!(this.compacted & bit)) return held;
    this.compacted &= ~bit;
    return aggregate.expand!(held);
  }

  /** From one device to several: each per-device aggregate's state becomes that device's in an array. */
  private spread(): void {
    const slots = this as unknown as Slots;
    for (const name of AGGREGATE_NAMES) {
      const held = slots[name];
      const aggregate = aggregateOf(name);
      if (held === undefined || aggregate.storage === 'folded') continue;
      const empty = SHARED_EMPTY[name];
      const devices = [empty, empty, empty];
      devices[this.device] = this.owned(name, aggregate, held);
      slots[name] = devices;
    }
    this.device = MANY;
  }
}

/** The first device with events: where a cell's folded union is placed (only the union is read). */
function firstDevice(counts: readonly number[] | undefined): number {
  for (let d = 0; d < 3; d++) if (counts?.[d]) return d;
  return 0;
}

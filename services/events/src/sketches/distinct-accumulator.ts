import { estimateCardinality } from './hll-estimate';
import { ascending, countUnion, distinctUnion } from './pending-hashes';
import { maxRegistersInto } from './register-max';
import {
  addToRegisters,
  DISTINCT_SKETCH,
  EMPTY_SKETCH,
  exactSketch,
  hllSketch,
  registersOf,
  type DistinctSketch,
} from './sketch-model';

const LIMIT = DISTINCT_SKETCH.exactLimit;
/**
 * Pending hashes a group may hold before they are folded, whatever its union: past it, and past
 * four times the union folded so far. A fold places the union and the pending hashes in a table:
 * with the union at most a quarter of them, a group's folds place at most 1.25 hashes per hash it
 * met, and its memory stays a small multiple of its union (below the floor, a few parts' lists).
 */
const PENDING_FLOOR = 4096;
/**
 * Pending lists a group may hold once they hold more hashes than its union: a raw read's rows
 * are parts of one visitor each, and each list held costs a reference beside its hash, so
 * thousands of them (a visitor back on many days of a raw span) would cost a group several times
 * its union in references alone. Folded past this many, a group holds at most about three times
 * its union (and a few kB of references).
 */
const PENDING_LISTS = 256;
const NO_HASHES: readonly number[] = Object.freeze([]);

/**
 * A report group's distinct visitors while its parts merge, owned by the group. A part's hashes
 * are held by reference (a decoded page's list, immutable and shared: never written) and the
 * union is made once, when it is asked for: most groups meet a few small parts and are only
 * counted, which the scratch table of pending-hashes.ts does without making a list; a merge per
 * part copied and moved the group's own list each time. It holds the union folded so far (a list
 * of distinct hashes never written: the first part's, or one a fold made, in no order until a
 * sketch is asked for), the lists pending since (folded once they pass PENDING_FLOOR and four
 * times the folded union, or once more than PENDING_LISTS of them hold more than the union, so
 * memory stays a small multiple of the union), and, once the union
 * passes the exact limit or a part is registers, HyperLogLog registers alone, into which every
 * later part goes at once. Whatever it holds, the union is the one merging the parts' sketches
 * makes: their hashes while at most the exact limit of them, else the registers of every hash and
 * of every part's registers (a maximum: the order of the parts never matters).
 */
export class DistinctAccumulator {
  /** Told from a sketch by the field a sketch's kind is in (a builder's checks walk no prototype). */
  readonly kind = 'accumulator';
  /** Distinct hashes, in no order (ascending once a sketch was made of them). */
  private held: readonly number[] = NO_HASHES;
  /** Lists of distinct hashes each (parts', another group's), held by reference. */
  private pending: Array<readonly number[]> = [];
  private pendingHashes = 0;
  /** The union's size while it is known since the last part, else -1 (a top-N report counts a group to rank it, then for its row). */
  private counted = -1;
  private registers: Uint8Array | undefined;

  /** The group's state from its first part (never written: its hashes are held, its registers copied). */
  constructor(first: DistinctSketch) {
    if (first.kind === 'hll') this.registers = first.registers.slice();
    else this.held = first.hashes;
  }

  /** A part (a sketch, or another accumulator) merged in; the part is never written. */
  add(part: DistinctSketch | DistinctAccumulator): void {
    if (part === this) return;
    if (part instanceof DistinctAccumulator) {
      if (part.registers) this.addRegisters(part.registers);
      else {
        // its lists are never written either: held by reference as well
        this.addHashes(part.held);
        for (let p = 0; p < part.pending.length; p++) this.addHashes(part.pending[p]!);
      }
    } else if (part.kind === 'hll') this.addRegisters(part.registers);
    else this.addHashes(part.hashes);
  }

  /** The distinct count: exact while the union is small, else the registers' estimate (rounded, as sketchCount). */
  count(): { value: number; exact: boolean } {
    if (!this.registers && this.counted < 0) {
      const n = this.pending.length === 0 ? this.held.length : countUnion(this.held, this.pending);
      if (n > LIMIT) this.toRegisters();
      else this.counted = n;
    }
    if (this.registers) return { value: Math.round(estimateCardinality(this.registers)), exact: false };
    return { value: this.counted, exact: true };
  }

  /** No hash merged (registers, made from a part's registers, count as not empty, as a sketch's do). */
  isEmpty(): boolean {
    return !this.registers && this.held.length === 0 && this.pendingHashes === 0;
  }

  /** The same union as a sketch of its own (sorted hashes, or a copy of the registers). */
  sketch(): DistinctSketch {
    this.fold();
    if (this.registers) return hllSketch(this.registers.slice());
    if (this.held.length === 0) return EMPTY_SKETCH;
    // held sorted from now on: a second sketch sorts nothing
    this.held = ascending(this.held);
    return exactSketch(this.held.slice());
  }

  /** Approximate heap bytes (a report's memory bound): the pending lists it keeps alive count as its own. */
  bytes(): number {
    if (this.registers) return 160 + this.registers.length;
    return 48 + 8 * (this.held.length + this.pendingHashes + this.pending.length);
  }

  private addHashes(hashes: readonly number[]): void {
    if (hashes.length === 0) return;
    const registers = this.registers;
    if (registers) {
      for (let i = 0; i < hashes.length; i++) addToRegisters(registers, hashes[i]!);
      return;
    }
    this.pending.push(hashes);
    this.pendingHashes += hashes.length;
    this.counted = -1;
    const pending = this.pendingHashes;
    if (
      (pending > PENDING_FLOOR && pending > 4 * this.held.length) ||
      (this.pending.length > PENDING_LISTS && pending > this.held.length)
    )
      this.fold();
  }

  private addRegisters(registers: Uint8Array): void {
    maxRegistersInto(this.toRegisters(), registers);
  }

  /** The pending lists made one with the held union: a list of its own (in no order), or registers past the limit. */
  private fold(): void {
    if (this.registers || this.pending.length === 0) return;
    // one list is held as it is
    const union =
      this.held.length === 0 && this.pending.length === 1 ? this.pending[0]! : distinctUnion(this.held, this.pending);
    if (!union) {
      this.toRegisters();
      return;
    }
    this.held = union;
    this.pending = [];
    this.pendingHashes = 0;
  }

  /** The registers, made once past the exact limit (or for a part's registers) from every hash held. */
  private toRegisters(): Uint8Array {
    if (this.registers) return this.registers;
    const registers = registersOf(this.held);
    for (const hashes of this.pending) for (let i = 0; i < hashes.length; i++) addToRegisters(registers, hashes[i]!);
    this.registers = registers;
    this.held = NO_HASHES;
    this.pending = [];
    this.pendingHashes = 0;
    return registers;
  }
}

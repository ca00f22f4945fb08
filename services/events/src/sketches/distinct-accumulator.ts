import { mergeHashesInto } from './distinct-sketch';
import { estimateCardinality } from './hll-estimate';
import { mix52 } from './mix-52';
import { maxRegistersInto } from './register-max';
import {
  addToRegisters,
  DISTINCT_SKETCH,
  EMPTY_SKETCH,
  exactSketch,
  hllSketch,
  type DistinctSketch,
} from './sketch-model';

const LIMIT = DISTINCT_SKETCH.exactLimit;
/**
 * A set this small, or one that has met at most SORTED_PARTS parts, is merged as a sorted list in
 * place: a merge moves the list's tail, the group's size for each part, which for a few parts (a
 * report's handful of units) costs less than making a table. A group meeting many parts of a
 * larger set (a campaign over hundreds of referrers) takes a table after the 16th.
 */
const SORTED_LIMIT = 256;
const SORTED_PARTS = 16;
/** Slots of a table that are empty: a hash is never negative. */
const FREE = -1;

/**
 * A report group's distinct visitors while its parts merge, owned by the group, in the cheapest
 * form for its size: a sorted list while small, then an open-addressing table of the hashes, then
 * (past the exact limit) HyperLogLog registers. Whatever the form, the union is the one merging
 * the parts' sketches makes: their hashes while at most the exact limit of them, else the
 * registers of every hash and of every part's registers (a maximum: the order of the parts never
 * matters). Past the sorted form a part costs its own size: a sorted set pays the group's size
 * for every part (the merge moves its tail), which a group of thousands of visitors meeting
 * hundreds of entries (a campaign over many referrers) paid hundreds of times.
 */
export class DistinctAccumulator {
  /** Told from a sketch by the field a sketch's kind is in (a builder's checks walk no prototype). */
  readonly kind = 'accumulator';
  private sorted: number[] | undefined;
  /** Parts of a larger set merged into the sorted list (SORTED_PARTS). */
  private parts = 0;
  private slots: Float64Array | undefined;
  private filled = 0;
  private registers: Uint8Array | undefined;

  /** The group's state from its first part (never written: its hashes or registers are copied). */
  constructor(first: DistinctSketch) {
    if (first.kind === 'hll') this.registers = first.registers.slice();
    else this.sorted = first.hashes.slice();
  }

  /** A part (a sketch, or another accumulator) merged in; the part is never written. */
  add(part: DistinctSketch | DistinctAccumulator): void {
    if (part instanceof DistinctAccumulator) {
      if (part.registers) this.addRegisters(part.registers);
      else this.addHashes(part.sorted ?? part.heldHashes());
    } else if (part.kind === 'hll') this.addRegisters(part.registers);
    else this.addHashes(part.hashes);
  }

  /** The distinct count: exact while the union is small, else the registers' estimate (rounded, as sketchCount). */
  count(): { value: number; exact: boolean } {
    if (this.registers) return { value: Math.round(estimateCardinality(this.registers)), exact: false };
    return { value: this.sorted ? this.sorted.length : this.filled, exact: true };
  }

  /** No hash merged (registers, made from a part's registers, count as not empty, as a sketch's do). */
  isEmpty(): boolean {
    return !this.registers && (this.sorted ? this.sorted.length === 0 : this.filled === 0);
  }

  /** The same union as a sketch of its own (sorted hashes, or a copy of the registers). */
  sketch(): DistinctSketch {
    if (this.registers) return hllSketch(this.registers.slice());
    if (this.sorted) return this.sorted.length === 0 ? EMPTY_SKETCH : exactSketch(this.sorted.slice());
    return exactSketch(Array.from(Float64Array.from(this.heldHashes()).sort()));
  }

  /** Approximate heap bytes (a report's memory bound). */
  bytes(): number {
    if (this.registers) return 160 + this.registers.length;
    return 48 + 8 * (this.sorted ? this.sorted.length : this.slots!.length);
  }

  private addHashes(hashes: readonly number[]): void {
    if (hashes.length === 0) return;
    const sorted = this.sorted;
    if (sorted) {
      const n = sorted.length + hashes.length;
      if (n <= SORTED_LIMIT || ++this.parts <= SORTED_PARTS) {
        // as an owned sketch's set merges: in place, or the union's registers past the exact limit
        const merged = mergeHashesInto(sorted, hashes);
        if (merged instanceof Uint8Array) {
          this.registers = merged;
          this.sorted = undefined;
        } else this.sorted = merged;
        return;
      }
      this.toTable(n);
    }
    let i = 0;
    // into the table until it turns into registers (if it does), the rest into the registers
    while (i < hashes.length && !this.registers) this.insert(hashes[i++]!);
    const registers = this.registers;
    if (registers) for (; i < hashes.length; i++) addToRegisters(registers, hashes[i]!);
  }

  private addRegisters(registers: Uint8Array): void {
    maxRegistersInto(this.toRegisters(), registers);
  }

  private insert(hash: number): void {
    const slots = this.slots!;
    const mask = slots.length - 1;
    let i = slotOf(hash, mask);
    for (;;) {
      const held = slots[i]!;
      if (held === hash) return;
      if (held === FREE) break;
      i = (i + 1) & mask;
    }
    slots[i] = hash;
    this.filled++;
    if (this.filled > LIMIT) this.toRegisters();
    else if (2 * this.filled > slots.length) this.toTable(this.filled);
  }

  /** The hashes held (sorted or in the table) moved into a table with room for `expected` without growing. */
  private toTable(expected: number): void {
    let n = 4 * SORTED_LIMIT;
    while (n < 2 * expected && n <= LIMIT) n *= 2;
    const sorted = this.sorted;
    const old = this.slots;
    this.slots = new Float64Array(n).fill(FREE);
    this.sorted = undefined;
    this.filled = 0;
    if (sorted) for (let k = 0; k < sorted.length; k++) this.insert(sorted[k]!);
    if (old) for (let k = 0; k < old.length; k++) if (old[k] !== FREE) this.insert(old[k]!);
  }

  /** The hashes of the table, in no order. */
  private heldHashes(): number[] {
    const out: number[] = [];
    const slots = this.slots;
    if (slots) for (let k = 0; k < slots.length; k++) if (slots[k] !== FREE) out.push(slots[k]!);
    return out;
  }

  /** The registers, made once past the exact limit (or for a part's registers) from every hash held. */
  private toRegisters(): Uint8Array {
    if (this.registers) return this.registers;
    const registers = new Uint8Array(DISTINCT_SKETCH.registers);
    const held = this.sorted ?? this.heldHashes();
    for (let k = 0; k < held.length; k++) addToRegisters(registers, held[k]!);
    this.registers = registers;
    this.sorted = undefined;
    this.slots = undefined;
    this.filled = 0;
    return registers;
  }
}

/** A hash's first slot in a table of `mask + 1` slots. */
function slotOf(hash: number, mask: number): number {
  return (mix52(hash) >>> 7) & mask;
}

import { mix52 } from './mix-52';
import { DISTINCT_SKETCH } from './sketch-model';

const LIMIT = DISTINCT_SKETCH.exactLimit;
/**
 * One open-addressing table for every union made in the process (a report counts thousands of
 * groups: a table of their own would be garbage made per group), a quarter full at most: a union
 * stops one hash past the exact limit. Cleared by walking the slots it filled. (A table sized to
 * each union, half full at most, kept a small group in fewer cache lines but probed more: slower.)
 */
const SLOTS = 4 * LIMIT;
/** The limit is a power of two: so is the table, whose slot is taken from the top bits of a mix. */
const BITS = Math.log2(SLOTS);
/** An empty slot: a hash is never negative. */
const FREE = -1;
const slots = new Float64Array(SLOTS).fill(FREE);
const filled = new Int32Array(LIMIT + 1);

/**
 * How many distinct hashes `held` and the `pending` lists hold together, or LIMIT + 1 as soon as
 * they pass the exact limit (the caller then makes registers and never needs the rest).
 */
export function countUnion(held: readonly number[], pending: ReadonlyArray<readonly number[]>): number {
  const n = insertUnion(held, pending);
  clear(n);
  return n;
}

/**
 * The distinct hashes of `held` and the `pending` lists, in no order, or null when they pass the
 * exact limit. A new list: neither `held` nor a pending list is written (they may be a stored
 * page's).
 */
export function distinctUnion(held: readonly number[], pending: ReadonlyArray<readonly number[]>): number[] | null {
  const n = insertUnion(held, pending);
  let out: number[] | null = null;
  if (n <= LIMIT) {
    // pushed: the list stays packed doubles
    out = [];
    for (let k = 0; k < n; k++) out.push(slots[filled[k]!]!);
  }
  clear(n);
  return out;
}

/** A list of distinct hashes ascending: the list itself when it is (a part's), else a sorted copy. */
export function ascending(hashes: readonly number[]): readonly number[] {
  let sorted = true;
  for (let i = 1; i < hashes.length && sorted; i++) sorted = hashes[i - 1]! < hashes[i]!;
  if (sorted) return hashes;
  // a Float64Array sorts numerically without a comparator call per pair
  return Array.from(Float64Array.from(hashes).sort());
}

/** Every list put in the (empty) table: how many distinct hashes it holds after, at most LIMIT + 1. */
function insertUnion(held: readonly number[], pending: ReadonlyArray<readonly number[]>): number {
  let n = insertAll(held, 0);
  for (let p = 0; p < pending.length && n <= LIMIT; p++) n = insertAll(pending[p]!, n);
  return n;
}

/** `hashes` put in the table, which holds `n` already: how many it holds after (at most LIMIT + 1). */
function insertAll(hashes: readonly number[], n: number): number {
  for (let i = 0; i < hashes.length; i++) {
    const hash = hashes[i]!;
    // the top bits of the mix: the best mixed
    let at = mix52(hash) >>> (32 - BITS);
    for (;;) {
      const held = slots[at]!;
      if (held === hash) break;
      if (held === FREE) {
        slots[at] = hash;
        filled[n++] = at;
        if (n > LIMIT) return n;
        break;
      }
      at = (at + 1) & (SLOTS - 1);
    }
  }
  return n;
}

function clear(n: number): void {
  for (let k = 0; k < n; k++) slots[filled[k]!] = FREE;
}

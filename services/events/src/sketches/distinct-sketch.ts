import { insertedAtMostOne, insertionPoint, unionInto, unionSorted } from './exact-hashes';
import { estimateCardinality } from './hll-estimate';
import { maxRegistersInto } from './register-max';
import { decodeSketch, raiseStoredRegisters } from './sketch-codec';
import {
  addToRegisters,
  checkHash,
  DISTINCT_SKETCH,
  EMPTY_SKETCH,
  exactSketch,
  hllSketch,
  registersOf,
  type DistinctSketch,
} from './sketch-model';

// One import path for the whole API: the model and the stored form are re-exported from here.
export { DISTINCT_SKETCH, type DistinctSketch } from './sketch-model';
export { decodeSketch, encodeSketch } from './sketch-codec';

/*
 * Ownership: a sketch is never changed once returned, with one exception, mergeInto's target.
 * So every 'hll' sketch any function returns has registers of its own (never an argument's), and
 * 'exact' lists are never written at all (they may be shared freely).
 */

const LIMIT = DISTINCT_SKETCH.exactLimit;
/** Sets of at most this many hashes are merged into an owned exact set in place. */
const SMALL_MERGE = 8;

/** Exact, no hashes: a shared frozen constant. */
export function emptySketch(): DistinctSketch {
  return EMPTY_SKETCH;
}

/** One hash's sketch (a pipeline row's visitor, made per row): no set built to hold one hash. */
export function sketchOfHash(hash: number): DistinctSketch {
  checkHash(hash);
  return exactSketch([hash]);
}

export function sketchOfHashes(hashes: Iterable<number>): DistinctSketch {
  const seen = new Set<number>();
  let registers: Uint8Array | null = null;
  for (const hash of hashes) {
    checkHash(hash);
    if (registers) {
      addToRegisters(registers, hash);
      continue;
    }
    seen.add(hash);
    if (seen.size > LIMIT) registers = registersOf([...seen]);
  }
  if (registers) return hllSketch(registers);
  if (seen.size === 0) return EMPTY_SKETCH;
  // a Float64Array sorts numerically without a comparator call per pair
  return exactSketch(Array.from(Float64Array.from(seen).sort()));
}

/** Returns a new sketch, never mutates s. */
export function addHash(s: DistinctSketch, hash: number): DistinctSketch {
  checkHash(hash);
  if (s.kind === 'hll') {
    const registers = s.registers.slice();
    addToRegisters(registers, hash);
    return hllSketch(registers);
  }
  const at = insertionPoint(s.hashes, hash);
  if (s.hashes[at] === hash) return s;
  if (s.hashes.length === LIMIT) return hllSketch(registersOf(s.hashes, [hash]));
  const hashes = s.hashes.slice();
  hashes.splice(at, 0, hash);
  return exactSketch(hashes);
}

/** Pure: never mutates a or b. */
export function mergeSketches(a: DistinctSketch, b: DistinctSketch): DistinctSketch {
  if (a.kind === 'hll') return mergeInto(hllSketch(a.registers.slice()), b);
  // mergeInto may insert into an exact target in place: give it a copy of a
  return mergeInto(a.hashes.length === 0 ? a : exactSketch(a.hashes.slice()), b);
}

/**
 * Merge `b` into `target`, which the caller owns (created by this call chain, never shared): may
 * mutate and return target. The hot path of reports (thousands of merges into one group).
 */
export function mergeInto(target: DistinctSketch, b: DistinctSketch): DistinctSketch {
  if (target.kind === 'hll') {
    const registers = target.registers;
    if (b.kind === 'hll') {
      maxRegistersInto(registers, b.registers);
    } else {
      for (let i = 0; i < b.hashes.length; i++) addToRegisters(registers, b.hashes[i]!);
    }
    return target;
  }
  if (b.kind === 'hll') {
    const registers = b.registers.slice();
    for (let i = 0; i < target.hashes.length; i++) addToRegisters(registers, target.hashes[i]!);
    return hllSketch(registers);
  }
  if (b.hashes.length === 0) return target;
  // a copy: what the caller owns must never be b itself (b may be shared)
  if (target.hashes.length === 0) return exactSketch(b.hashes.slice());
  const into = target.hashes as number[];
  if (into.length + b.hashes.length <= LIMIT) {
    // a few visitors (a raw row, a cell entry of a few events): most are in the set already (the
    // same visitors come back), and one new hash is inserted where it goes
    if (b.hashes.length <= SMALL_MERGE && insertedAtMostOne(into, b.hashes)) return target;
    // merged into the owned set from its end, in place: no new list per merge, so a group that
    // meets thousands of entries does not copy its set for each of them
    unionInto(into, b.hashes);
    return target;
  }
  const union = unionSorted(into, b.hashes, LIMIT);
  return union ? exactSketch(union) : hllSketch(registersOf(into, b.hashes));
}

/** The answer: exact => the set size; hll => the estimate rounded to an integer. */
export function sketchCount(s: DistinctSketch): { value: number; exact: boolean } {
  if (s.kind === 'exact') return { value: s.hashes.length, exact: true };
  return { value: Math.round(estimateCardinality(s.registers)), exact: false };
}

/** Approximate heap bytes (for a report's memory bound): V8 keeps these lists as unboxed doubles. */
export function sketchBytes(s: DistinctSketch): number {
  if (s.kind === 'exact') return 48 + 8 * s.hashes.length;
  return 160 + s.registers.length;
}

/**
 * Merge a stored sketch (as `encodeSketch` wrote it) into `target`, which the caller owns (as
 * `mergeInto`). When target is a HyperLogLog, stored registers are read straight into target's:
 * no decoded copy per stored sketch, the cost of a report that merges thousands of them.
 */
export function mergeStoredInto(target: DistinctSketch, stored: unknown): DistinctSketch {
  if (target.kind === 'hll' && raiseStoredRegisters(target.registers, stored)) return target;
  const decoded = decodeSketch(stored);
  // freshly decoded (or the frozen empty sketch, never written in place): the caller's own, no copy
  if (target.kind === 'exact' && target.hashes.length === 0) return decoded;
  return mergeInto(target, decoded);
}

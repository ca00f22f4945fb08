import { checkValue, keyOf, QUANTILE_SKETCH } from './quantile-mapping';
import { EMPTY_QUANTILES as EMPTY, type QuantileSketch } from './quantile-model';
import { QuantileMerger } from './quantile-merger';

// One import path for the whole API: the mapping, the queries and the stored form are re-exported from here.
export { QUANTILE_SKETCH } from './quantile-mapping';
export type { QuantileSketch } from './quantile-model';
export { quantileAnswer, quantileAt, shareAnswer, shareAtLeast } from './quantile-query';
export { addStoredQuantiles, decodeQuantiles, encodeQuantiles, QuantileFormatError } from './quantile-codec';
export { QuantileMerger } from './quantile-merger';

export function emptyQuantiles(): QuantileSketch {
  return EMPTY;
}

function checkCount(count: number): void {
  if (!(Number.isSafeInteger(count) && count >= 1)) {
    throw new RangeError(`a quantile-sketch count is a positive integer, got ${String(count)}`);
  }
}

/** A total past 2^53 would stop counting exactly: refuse it rather than drift. */
function checkTotal(total: number): number {
  if (!Number.isSafeInteger(total)) throw new RangeError('a quantile sketch holds at most 2^53 - 1 values');
  return total;
}

/** The sketch of a list of values, in one pass (a dense scratch array, then the non-empty bins). */
export function quantilesOf(values: Iterable<number>): QuantileSketch {
  const scratch = new Float64Array(QUANTILE_SKETCH.maxKey + 1);
  let zeros = 0;
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    checkValue(value);
    count++;
    if (value < min) min = value;
    if (value > max) max = value;
    if (value === 0) zeros++;
    else {
      const key = keyOf(value);
      scratch[key] = scratch[key]! + 1;
    }
  }
  if (count === 0) return EMPTY;
  return fromScratch(scratch, zeros, count, min, max);
}

function fromScratch(scratch: Float64Array, zeros: number, count: number, min: number, max: number): QuantileSketch {
  let used = 0;
  for (let k = 0; k < scratch.length; k++) if (scratch[k] !== 0) used++;
  const keys = new Uint16Array(used);
  const counts = new Float64Array(used);
  for (let k = 0, i = 0; k < scratch.length; k++) {
    if (scratch[k] === 0) continue;
    keys[i] = k;
    counts[i++] = scratch[k]!;
  }
  return { count: checkTotal(count), zeros, min, max, keys, counts };
}

/** Returns a new sketch with `count` more copies of `value`; never mutates s. */
export function addValue(s: QuantileSketch, value: number, count = 1): QuantileSketch {
  checkValue(value);
  checkCount(count);
  return mergeQuantiles(s, single(value, count));
}

function single(value: number, count: number): QuantileSketch {
  if (value === 0) return { count, zeros: count, min: 0, max: 0, keys: EMPTY.keys, counts: EMPTY.counts };
  return {
    count,
    zeros: 0,
    min: value,
    max: value,
    keys: Uint16Array.of(keyOf(value)),
    counts: Float64Array.of(count),
  };
}

/** Pure: never mutates a or b. The sum of both sets of counts, merged in key order. */
export function mergeQuantiles(a: QuantileSketch, b: QuantileSketch): QuantileSketch {
  if (b.count === 0) return a;
  if (a.count === 0) return b;
  const ka = a.keys;
  const kb = b.keys;
  const keys = new Uint16Array(ka.length + kb.length);
  const counts = new Float64Array(ka.length + kb.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < ka.length || j < kb.length) {
    const x = i < ka.length ? ka[i]! : Infinity;
    const y = j < kb.length ? kb[j]! : Infinity;
    keys[n] = x <= y ? x : y;
    counts[n++] = (x <= y ? a.counts[i++]! : 0) + (y <= x ? b.counts[j++]! : 0);
  }
  return {
    count: checkTotal(a.count + b.count),
    zeros: a.zeros + b.zeros,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    keys: n === keys.length ? keys : keys.slice(0, n),
    counts: n === counts.length ? counts : counts.slice(0, n),
  };
}

/** Reused by mergeAllQuantiles (empty again after each take): no allocation per merge but the result's. */
const MERGER = new QuantileMerger();

/**
 * The sketch of all of them together, in one pass (QuantileMerger): equal to merging them
 * pairwise (counts only add up), with one new sketch instead of one per merge.
 */
export function mergeAllQuantiles(sketches: readonly QuantileSketch[]): QuantileSketch {
  let first: QuantileSketch | undefined;
  let parts = 0;
  for (const s of sketches) if (s.count > 0 && parts++ === 0) first = s;
  if (parts <= 1) return first ?? EMPTY;
  for (const s of sketches) MERGER.add(s);
  return MERGER.take();
}

export function quantileCount(s: QuantileSketch): number {
  return s.count;
}

/** Approximate heap bytes (for a report's memory bound): two typed arrays of 10 bytes a bin, plus headers. */
export function quantileBytes(s: QuantileSketch): number {
  return 320 + 10 * s.keys.length;
}

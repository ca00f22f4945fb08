/**
 * Relative-error quantiles over non-negative integers, mergeable (the DDSketch construction:
 * Masson, Rim, Lee, VLDB 2019). A value v > 0 falls in bin i = ceil(log_γ v), γ = (1+α)/(1-α), and
 * a bin answers 2γ^i/(γ+1): within α of every value it holds. Zero has a count of its own. Bins
 * only count, so merging two sketches adds counts and the merge of sketch(A) and sketch(B) is
 * exactly sketch(A ∪ B), in any order. Measures are at most 10^12, so at most
 * MAX_BINS bins exist: the sketch is bounded without collapsing any bin (no accuracy is ever given
 * up for size). Sketches are immutable: every operation returns a new one.
 */
export interface QuantileSketch {
  readonly zeros: number;
  /** Bin indexes, ascending, each with a count > 0 at the same position of `counts`. */
  readonly indexes: readonly number[];
  readonly counts: readonly number[];
}

/** Relative accuracy α: an answer x stands for a true value within x/(1+α) .. x/(1-α). */
export const QUANTILE_RELATIVE_ACCURACY = 0.01;
const GAMMA = (1 + QUANTILE_RELATIVE_ACCURACY) / (1 - QUANTILE_RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
/** The largest value a sketch takes (the largest measure). */
export const QUANTILE_MAX_VALUE = 1_000_000_000_000;
/** Bins 0 .. binOf(10^12): values from 1 up (1 is bin 0). */
export const QUANTILE_MAX_BINS = binOf(QUANTILE_MAX_VALUE) + 1;

const EMPTY: QuantileSketch = Object.freeze({ zeros: 0, indexes: Object.freeze([]), counts: Object.freeze([]) });

export function emptyQuantiles(): QuantileSketch {
  return EMPTY;
}

/** The bin of a value >= 1. */
export function binOf(value: number): number {
  return Math.ceil(Math.log(value) / LOG_GAMMA);
}

/** What a bin answers: within α of every value in (γ^(i-1), γ^i]. */
export function binValue(index: number): number {
  return (2 * GAMMA ** index) / (GAMMA + 1);
}

/** The sketch with `count` more occurrences of `value` (an integer 0..10^12; anything else is refused). */
export function addValue(s: QuantileSketch, value: number, count = 1): QuantileSketch {
  if (!Number.isInteger(value) || value < 0 || value > QUANTILE_MAX_VALUE)
    throw new RangeError(`a quantile sketch takes integers 0..${QUANTILE_MAX_VALUE}, got ${value}`);
  if (value === 0) return { ...s, zeros: s.zeros + count };
  return mergeQuantiles(s, { zeros: 0, indexes: [binOf(value)], counts: [count] });
}

/** The sketch of both sets of values together (a new sketch; neither input changes). */
export function mergeQuantiles(a: QuantileSketch, b: QuantileSketch): QuantileSketch {
  if (quantileCount(b) === 0) return a;
  if (quantileCount(a) === 0) return b;
  const indexes: number[] = [];
  const counts: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.indexes.length || j < b.indexes.length) {
    const x = i < a.indexes.length ? a.indexes[i]! : Infinity;
    const y = j < b.indexes.length ? b.indexes[j]! : Infinity;
    if (x === y) {
      indexes.push(x);
      counts.push(a.counts[i++]! + b.counts[j++]!);
    } else if (x < y) {
      indexes.push(x);
      counts.push(a.counts[i++]!);
    } else {
      indexes.push(y);
      counts.push(b.counts[j++]!);
    }
  }
  return { zeros: a.zeros + b.zeros, indexes, counts };
}

/** How many values the sketch holds. */
export function quantileCount(s: QuantileSketch): number {
  let n = s.zeros;
  for (const c of s.counts) n += c;
  return n;
}

/**
 * The value at rank q·(n-1) (q in [0, 1]), within α of the exact order statistic; null when
 * the sketch is empty.
 */
export function quantileAt(s: QuantileSketch, q: number): number | null {
  const n = quantileCount(s);
  if (n === 0) return null;
  const rank = Math.min(1, Math.max(0, q)) * (n - 1);
  let seen = s.zeros;
  if (seen > rank) return 0;
  for (let i = 0; i < s.indexes.length; i++) {
    seen += s.counts[i]!;
    if (seen > rank) return binValue(s.indexes[i]!);
  }
  return binValue(s.indexes[s.indexes.length - 1]!);
}

/**
 * The share (0..1) of values at or above `threshold`, counting each value by its bin's answer:
 * a value v is counted surely when v >= threshold/(1-α) and surely not when v < threshold/(1+α),
 * so only values within about α of the threshold may fall on either side. Null when empty.
 */
export function shareAtLeast(s: QuantileSketch, threshold: number): number | null {
  const n = quantileCount(s);
  if (n === 0) return null;
  let above = threshold <= 0 ? s.zeros : 0;
  for (let i = 0; i < s.indexes.length; i++) if (binValue(s.indexes[i]!) >= threshold) above += s.counts[i]!;
  return above / n;
}

/** Estimated bytes of a sketch held in memory (the report's group bound). */
export function quantileBytes(s: QuantileSketch): number {
  return 96 + 16 * s.indexes.length;
}

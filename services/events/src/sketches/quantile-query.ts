import { binRange, keyOf, midpointOf, QUANTILE_SKETCH } from './quantile-mapping';
import type { QuantileSketch } from './quantile-model';

/**
 * An answer of the sketch and whether the sketch proves it is the exact one: `exact` is false
 * only when two sets of values with this very sketch have different exact answers.
 */
export interface QuantileAnswer {
  value: number | null;
  exact: boolean;
}

const NONE: QuantileAnswer = Object.freeze({ value: null, exact: true });
const known = (value: number): QuantileAnswer => ({ value, exact: true });

/** quantileAnswer's value. */
export function quantileAt(s: QuantileSketch, q: number): number | null {
  return quantileAnswer(s, q).value;
}

/**
 * The value at rank ceil(q n) (1-based, at least 1: the nearest-rank quantile) within 1 % relative
 * of the exact one, or null when the sketch is empty. Rank 1 and rank n answer the exact min and
 * max; any other answer is its bin's midpoint, clamped to [min, max] (which only brings it closer).
 * Exact: rank 1 and n, a rank among the zeros, and a rank whose bin, narrowed to [min, max], holds
 * a single integer (every bin up to 128; a single distinct value); otherwise the value at that rank
 * could be any integer of that range. The small tolerance keeps q n from rounding up past an
 * integer (0.07 x 100 is 7.000000000000001).
 */
export function quantileAnswer(s: QuantileSketch, q: number): QuantileAnswer {
  const rank = nearestRank(s.count, q);
  const edge = edgeAnswer(s, rank);
  if (edge) return edge;
  const { keys, counts } = s;
  let seen = s.zeros;
  for (let i = 0; i < keys.length; i++) {
    seen += counts[i]!;
    if (rank <= seen) return binAnswer(keys[i]!, s);
  }
  return known(s.max); // unreachable while count equals zeros plus the bin counts, which every builder keeps
}

/** What a quantile answer reads of a sketch besides its bins. */
type QuantileTotals = Pick<QuantileSketch, 'count' | 'zeros' | 'min' | 'max'>;

/** The nearest rank of q among n values (1-based, at least 1; 0 when n is 0), q checked. */
export function nearestRank(n: number, q: number): number {
  if (!(typeof q === 'number' && q >= 0 && q <= 1)) throw new RangeError(`a quantile is in [0, 1], got ${String(q)}`);
  return n === 0 ? 0 : Math.max(1, Math.ceil(q * n - 1e-9));
}

/** The answer at `rank` when no bin need be found (none, the min, the max, a zero), else undefined. */
export function edgeAnswer(s: QuantileTotals, rank: number): QuantileAnswer | undefined {
  if (s.count === 0) return NONE;
  if (rank === 1) return known(s.min);
  if (rank >= s.count) return known(s.max);
  if (rank <= s.zeros) return known(0);
  return undefined;
}

/** The answer of a rank that falls in bin `key` (neither the first nor the last rank, nor a zero). */
export function binAnswer(key: number, s: QuantileTotals): QuantileAnswer {
  const [lowest, highest] = binRange(key);
  const lo = Math.max(lowest, s.min);
  if (lo === Math.min(highest, s.max)) return known(lo);
  return { value: Math.min(s.max, Math.max(s.min, midpointOf(key))), exact: false };
}

/** shareAnswer's value. */
export function shareAtLeast(s: QuantileSketch, threshold: number): number | null {
  return shareAnswer(s, threshold).value;
}

/**
 * The fraction of values >= threshold, or null when the sketch is empty. Values in other bins than
 * the threshold's are on a known side of it, and so are the kept min and max; the other values of
 * the threshold's own bin count as the bin's midpoint, so a value v lands on the wrong side of
 * threshold t only when |v - t| < 1 % of the larger of the two. Exact: at or below the smallest
 * value (1), above the largest (0), and whenever the threshold's bin holds no value whose side is
 * unknown (every integer threshold up to 128, its bin holding it alone; an empty bin; a bin holding
 * only the min or the max).
 */
export function shareAnswer(s: QuantileSketch, threshold: number): QuantileAnswer {
  if (typeof threshold !== 'number' || Number.isNaN(threshold)) {
    throw new RangeError(`a threshold is a number, got ${String(threshold)}`);
  }
  const n = s.count;
  if (n === 0) return NONE;
  if (threshold <= s.min) return known(1);
  if (threshold > s.max) return known(0);
  if (threshold <= 1) return known((n - s.zeros) / n);
  const at = keyOf(Math.min(threshold, QUANTILE_SKETCH.largestValue));
  const { keys, counts } = s;
  let above = 0;
  let i = keys.length - 1;
  for (; i >= 0 && keys[i]! > at; i--) above += counts[i]!;
  if (i < 0 || keys[i] !== at) return known(above / n);
  // from here min < threshold <= max: the min (when it is in this bin) is below, the max above
  const [lowest, highest] = binRange(at);
  const inBin = counts[i]!;
  if (Math.max(lowest, s.min) >= threshold) return known((above + inBin) / n);
  if (Math.min(highest, s.max) < threshold) return known(above / n);
  const holdsMax = i === keys.length - 1 ? 1 : 0;
  const unknown = inBin - holdsMax - (s.zeros === 0 && i === 0 ? 1 : 0);
  const sure = above + holdsMax;
  if (unknown === 0) return known(sure / n);
  return { value: (sure + (midpointOf(at) >= threshold ? unknown : 0)) / n, exact: false };
}

import { keyOf, midpointOf, QUANTILE_SKETCH } from './quantile-mapping';
import type { QuantileSketch } from './quantile-model';

/**
 * The value at rank ceil(q n) (1-based, at least 1: the nearest-rank quantile) within 1 % relative
 * of the exact one, or null when the sketch is empty. Rank 1 and rank n answer the exact min and
 * max; any other answer is its bin's midpoint, clamped to [min, max] (which only brings it closer).
 * The small tolerance keeps q n from rounding up past an integer (0.07 x 100 is 7.000000000000001).
 */
export function quantileAt(s: QuantileSketch, q: number): number | null {
  if (!(typeof q === 'number' && q >= 0 && q <= 1)) throw new RangeError(`a quantile is in [0, 1], got ${String(q)}`);
  const n = s.count;
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n - 1e-9));
  if (rank === 1) return s.min;
  if (rank >= n) return s.max;
  let seen = s.zeros;
  if (rank <= seen) return 0;
  const { keys, counts } = s;
  for (let i = 0; i < keys.length; i++) {
    seen += counts[i]!;
    if (rank <= seen) return Math.min(s.max, Math.max(s.min, midpointOf(keys[i]!)));
  }
  return s.max; // unreachable while count equals zeros plus the bin counts, which every builder keeps
}

/**
 * The fraction of values >= threshold, or null when the sketch is empty. Values in the threshold's
 * own bin count as their bin's midpoint, so a value v lands on the wrong side of threshold t only
 * when |v - t| < 1 % of the larger of the two; every other value is counted exactly (and every
 * integer threshold up to 128 is exact, its bin holding it alone). At or below the smallest value
 * the answer is 1, above the largest 0, both exact.
 */
export function shareAtLeast(s: QuantileSketch, threshold: number): number | null {
  if (typeof threshold !== 'number' || Number.isNaN(threshold)) {
    throw new RangeError(`a threshold is a number, got ${String(threshold)}`);
  }
  const n = s.count;
  if (n === 0) return null;
  if (threshold <= s.min) return 1;
  if (threshold > s.max) return 0;
  if (threshold <= 1) return (n - s.zeros) / n;
  const at = keyOf(Math.min(threshold, QUANTILE_SKETCH.largestValue));
  const { keys, counts } = s;
  let above = 0;
  for (let i = keys.length - 1; i >= 0 && keys[i]! >= at; i--) {
    if (keys[i]! > at || midpointOf(at) >= threshold) above += counts[i]!;
  }
  return above / n;
}

/*
 * Logarithmic bins with relative accuracy alpha = 1 %: bin k >= 0 holds the values in
 * (gamma^(k-1), gamma^k] with gamma = (1 + alpha) / (1 - alpha), as DDSketch maps them; the value
 * 0 has a count of its own. Inputs are integers, so bin k holds the integers lo(k)..hi(k) and
 * answers with their harmonic midpoint 2 lo hi / (lo + hi), which is within
 * (hi - lo) / (hi + lo) < alpha of every one of them, and exact when the bin holds one integer
 * (every integer up to 50 has a bin of its own).
 *
 * The bounds gamma^k are computed once into a table and a key is placed against that table, not
 * by the logarithm alone, so a value and its bin's bounds always agree to the last bit.
 */

const ALPHA = 0.01;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LOG_GAMMA = Math.log(GAMMA);
const LARGEST = Number.MAX_SAFE_INTEGER;
const MAX_KEY = largestKey();

/** 1 % relative accuracy; integers 0..2^53-1 take keys 0..1837, so the 2,048-bin limit is never reached. */
export const QUANTILE_SKETCH: {
  relativeAccuracy: number;
  gamma: number;
  largestValue: number;
  maxKey: number;
  binLimit: 2048;
} = Object.freeze({
  relativeAccuracy: ALPHA,
  gamma: GAMMA,
  largestValue: LARGEST,
  maxKey: MAX_KEY,
  binLimit: 2048,
});

/** UPPER[k] = gamma^k, the largest value of bin k. */
const UPPER = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => GAMMA ** k);
/** The answer of bin k; NaN for the small bins that hold no integer (never filled). */
const MIDPOINT = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => {
  const lo = k === 0 ? 1 : Math.floor(UPPER[k - 1]!) + 1;
  const hi = Math.floor(UPPER[k]!);
  if (lo > hi) return NaN;
  return lo === hi ? lo : (2 * lo * hi) / (lo + hi);
});

if (MAX_KEY + 1 > QUANTILE_SKETCH.binLimit)
  throw new Error('quantile sketch: the value range needs more bins than the limit');

/** The key of the largest value, found against gamma^k itself (as the table below), not a logarithm. */
function largestKey(): number {
  let k = Math.floor(Math.log(LARGEST) / LOG_GAMMA) - 2;
  while (GAMMA ** k < LARGEST) k++;
  return k;
}

/** A value this sketch was not made for would land in no bin: refuse it. */
export function checkValue(value: number): void {
  if (!(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`a quantile-sketch value is an integer in [0, 2^53), got ${String(value)}`);
  }
}

/** The key of a value >= 1 (any real number up to 2^53, not only integers: thresholds too). */
export function keyOf(value: number): number {
  let k = Math.ceil(Math.log(value) / LOG_GAMMA);
  if (k <= 0) return 0;
  if (k > MAX_KEY) k = MAX_KEY;
  // the logarithm can miss by one at a bound: the table decides
  if (UPPER[k]! < value) k++;
  else if (k > 0 && UPPER[k - 1]! >= value) k--;
  return k;
}

/** The value a bin answers with (see above). */
export function midpointOf(key: number): number {
  return MIDPOINT[key]!;
}

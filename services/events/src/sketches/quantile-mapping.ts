/*
 * Bins with relative accuracy alpha = 1 %. The value 0 has a count of its own; each integer 1..128
 * has a bin of its own (key = value - 1), so scroll depth (0..100) and other small counts are
 * exact; above 128 a bin holds the values in (gamma^(j-1), gamma^j] with gamma = (1 + alpha) /
 * (1 - alpha), the logarithmic bins of DDSketch. Inputs are integers, so a bin holds the
 * integers lo..hi and answers with their harmonic midpoint 2 lo hi / (lo + hi), which is within
 * (hi - lo) / (hi + lo) < alpha of every one of them (hi / lo < gamma), and exact when lo = hi.
 *
 * The bounds are computed once into a table and a key is placed against that table, not by the
 * logarithm alone, so a value and its bin's bounds always agree to the last bit.
 */

const ALPHA = 0.01;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LOG_GAMMA = Math.log(GAMMA);
const LARGEST = Number.MAX_SAFE_INTEGER;
/** Integers 1..LINEAR have keys 0..LINEAR-1; key LINEAR is the first logarithmic bin. */
const LINEAR = 128;

/** The smallest j with gamma^j >= value, found against gamma^j itself (as the table below). */
function exponentFor(value: number): number {
  let j = Math.floor(Math.log(value) / LOG_GAMMA) - 2;
  while (GAMMA ** j < value) j++;
  return j;
}

/** The exponent of the first logarithmic bin: (128, gamma^J0], so gamma^(J0-1) <= 128 < gamma^J0. */
const J0 = exponentFor(LINEAR) + (GAMMA ** exponentFor(LINEAR) === LINEAR ? 1 : 0);
const MAX_KEY = LINEAR + exponentFor(LARGEST) - J0;

/** 1 % relative accuracy; integers 0..2^53-1 take keys 0..1722, so the 2,048-bin limit is never reached. */
export const QUANTILE_SKETCH: {
  relativeAccuracy: number;
  gamma: number;
  exactUpTo: number;
  largestValue: number;
  maxKey: number;
  binLimit: 2048;
} = Object.freeze({
  relativeAccuracy: ALPHA,
  gamma: GAMMA,
  exactUpTo: LINEAR,
  largestValue: LARGEST,
  maxKey: MAX_KEY,
  binLimit: 2048,
});

/** UPPER[k], the largest value of bin k. */
const UPPER = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => (k < LINEAR ? k + 1 : GAMMA ** (J0 + k - LINEAR)));
/** LOWEST[k] and HIGHEST[k], the smallest and largest integer bin k holds. */
const LOWEST = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => (k === 0 ? 1 : Math.floor(UPPER[k - 1]!) + 1));
const HIGHEST = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => Math.floor(UPPER[k]!));
/** The answer of bin k. */
const MIDPOINT = Float64Array.from({ length: MAX_KEY + 1 }, (_, k) => {
  const lo = LOWEST[k]!;
  const hi = HIGHEST[k]!;
  return lo === hi ? lo : (2 * lo * hi) / (lo + hi);
});

if (MAX_KEY + 1 > QUANTILE_SKETCH.binLimit)
  throw new Error('quantile sketch: the value range needs more bins than the limit');

/** A value this sketch was not made for would land in no bin: refuse it. */
export function checkValue(value: number): void {
  if (!(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`a quantile-sketch value is an integer in [0, 2^53), got ${String(value)}`);
  }
}

/** The key of a value > 0 (any real number up to 2^53, not only integers: thresholds too). */
export function keyOf(value: number): number {
  if (value <= LINEAR) return value <= 1 ? 0 : Math.ceil(value) - 1;
  let k = LINEAR + Math.ceil(Math.log(value) / LOG_GAMMA) - J0;
  if (k < LINEAR) k = LINEAR;
  if (k > MAX_KEY) k = MAX_KEY;
  // the logarithm can miss by one at a bound: the table decides
  if (UPPER[k]! < value) k++;
  else if (k > LINEAR && UPPER[k - 1]! >= value) k--;
  return k;
}

/** The value a bin answers with (see above). */
export function midpointOf(key: number): number {
  return MIDPOINT[key]!;
}

/** The smallest and the largest integer bin `key` holds (one and the same up to 128). */
export function binRange(key: number): [lowest: number, highest: number] {
  return [LOWEST[key]!, HIGHEST[key]!];
}

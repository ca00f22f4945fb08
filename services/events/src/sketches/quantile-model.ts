/**
 * Counts of non-negative integers in logarithmic bins (`quantile-mapping.ts`): `zeros` values 0,
 * and counts[i] values in bin keys[i], keys strictly ascending, every count >= 1. `min` and `max`
 * are the exact extremes (0 when empty). One multiset of bins has exactly one sketch, so merging
 * is the sum of counts and the merge of sketch(A) and sketch(B) is sketch(A ∪ B) field for field.
 * Never changed once returned: every function builds a new one (an empty sketch is shared).
 */
export interface QuantileSketch {
  readonly count: number;
  readonly zeros: number;
  readonly min: number;
  readonly max: number;
  readonly keys: Uint16Array;
  readonly counts: Float64Array;
}

export const EMPTY_QUANTILES: QuantileSketch = Object.freeze({
  count: 0,
  zeros: 0,
  min: 0,
  max: 0,
  keys: new Uint16Array(0),
  counts: new Float64Array(0),
});

import { checkValue, keyOf } from './quantile-mapping';
import { EMPTY_QUANTILES, type QuantileSketch } from './quantile-model';

/**
 * A quantile sketch being accumulated in place: the same bins as QuantileSketch (one multiset of
 * bins, one sketch), in a Map, so a builder folding a row or a report merging a part adds counts
 * without a new sketch each time. `toSketch` gives the immutable sketch of what was added.
 */
export class QuantileBins {
  count = 0;
  zeros = 0;
  min = Infinity;
  max = -Infinity;
  readonly bins = new Map<number, number>();

  addValue(value: number, count = 1): void {
    checkValue(value);
    this.note(count, value, value);
    if (value === 0) this.zeros += count;
    else {
      const key = keyOf(value);
      this.bins.set(key, (this.bins.get(key) ?? 0) + count);
    }
  }

  addSketch(s: QuantileSketch): void {
    if (s.count === 0) return;
    this.note(s.count, s.min, s.max);
    this.zeros += s.zeros;
    for (let i = 0; i < s.keys.length; i++) {
      const key = s.keys[i]!;
      this.bins.set(key, (this.bins.get(key) ?? 0) + s.counts[i]!);
    }
  }

  addBins(other: QuantileBins): void {
    if (other.count === 0) return;
    this.note(other.count, other.min, other.max);
    this.zeros += other.zeros;
    for (const [key, count] of other.bins) this.bins.set(key, (this.bins.get(key) ?? 0) + count);
  }

  copy(): QuantileBins {
    const out = new QuantileBins();
    out.addBins(this);
    return out;
  }

  toSketch(): QuantileSketch {
    if (this.count === 0) return EMPTY_QUANTILES;
    const keys = Uint16Array.from(this.bins.keys()).sort();
    const counts = new Float64Array(keys.length);
    for (let i = 0; i < keys.length; i++) counts[i] = this.bins.get(keys[i]!)!;
    return { count: this.count, zeros: this.zeros, min: this.min, max: this.max, keys, counts };
  }

  /** Approximate heap bytes: the object and a Map entry per bin. */
  bytes(): number {
    return 160 + 40 * this.bins.size;
  }

  private note(count: number, min: number, max: number): void {
    const total = this.count + count;
    if (!Number.isSafeInteger(total)) throw new RangeError('a quantile sketch holds at most 2^53 - 1 values');
    this.count = total;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
  }
}

import { QUANTILE_SKETCH } from './quantile-mapping';
import { EMPTY_QUANTILES, type QuantileSketch } from './quantile-model';

const BINS = QUANTILE_SKETCH.maxKey + 1;

/**
 * Adds many sketches into one: their counts summed into a dense array the merger keeps, with the
 * bins it touched listed, so taking the result costs the bins it holds, not the key range between
 * its smallest and largest value. A report merges thousands of small parts per group this way
 * without a sketch per part; one merger serves many groups, one `take()` each (it is empty again
 * after it). Merging only adds counts, so the result is the sketch of all the parts' values.
 */
export class QuantileMerger {
  private readonly dense = new Float64Array(BINS);
  private readonly touched = new Uint16Array(BINS);
  private used = 0;
  private zeros = 0;
  private count = 0;
  private min = Infinity;
  private max = -Infinity;

  add(s: QuantileSketch): void {
    if (s.count > 0) this.addBins(s.count, s.zeros, s.min, s.max, s.keys, s.counts, s.keys.length);
  }

  /** The first `n` bins of `keys`/`counts` (a decoder's scratch arrays, read here and not kept). */
  addBins(
    count: number,
    zeros: number,
    min: number,
    max: number,
    keys: Uint16Array,
    counts: Float64Array,
    n: number,
  ): void {
    if (count === 0) return;
    this.count += count;
    this.zeros += zeros;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
    const dense = this.dense;
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      if (dense[key] === 0) this.touched[this.used++] = key;
      dense[key] = dense[key]! + counts[i]!;
    }
  }

  /** The merged sketch; the merger is empty again. */
  take(): QuantileSketch {
    if (this.count === 0) return EMPTY_QUANTILES;
    const n = this.used;
    const keys = this.touched.slice(0, n).sort();
    const counts = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      counts[i] = this.dense[keys[i]!]!;
      this.dense[keys[i]!] = 0;
    }
    const out: QuantileSketch = { count: this.count, zeros: this.zeros, min: this.min, max: this.max, keys, counts };
    this.used = 0;
    this.clear();
    if (!Number.isSafeInteger(out.count)) throw new RangeError('a quantile sketch holds at most 2^53 - 1 values');
    return out;
  }

  /** Empty again, whatever was added (a merge abandoned half-way: a damaged stored part). */
  clear(): void {
    for (let i = 0; i < this.used; i++) this.dense[this.touched[i]!] = 0;
    this.used = 0;
    this.zeros = 0;
    this.count = 0;
    this.min = Infinity;
    this.max = -Infinity;
  }
}

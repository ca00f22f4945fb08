import { QUANTILE_SKETCH } from './quantile-mapping';
import { QuantileBins } from './quantile-bins';
import { EMPTY_QUANTILES, type QuantileSketch } from './quantile-model';
import { binAnswer, edgeAnswer, nearestRank, quantileAnswer, type QuantileAnswer } from './quantile-query';
import { SlotArena } from './slot-arena';

/** What a quantile state's measure may hold: bins being built, a report's dense bins, or a stored sketch as read. */
export type QuantileSource = QuantileBins | DenseQuantileBins | QuantileSketch;

const KEYS = QUANTILE_SKETCH.maxKey + 1;
const WINDOWS = new SlotArena();

/** view()'s bins, shared by every DenseQuantileBins, and views of their first n for each n (made once). */
const VIEW_KEYS = new Uint16Array(KEYS);
const VIEW_COUNTS = new Float64Array(KEYS);
const KEY_VIEWS: Uint16Array[] = [];
const COUNT_VIEWS: Float64Array[] = [];

/**
 * The widest window a dense form may hold for `bins` non-empty bins: 256 slots (2 KB) whatever
 * they are, wider only at 8 slots (64 bytes) a bin plus 64, which is at most about twice the
 * sparse form's 40 bytes a bin (a Map entry). So a group's measure never costs more than 2 KB
 * beyond about twice its sparse form, however far apart its values (1 ms and 1e9 ms: 1,100 keys
 * apart, kept sparse until some 130 bins fill them). Past it the bins are kept sparse, and back in
 * a window once enough bins fill their span: each way needs the span to grow past what the bins
 * held, or the bins to grow, so a group moves at most once per part.
 */
const widestFor = (bins: number): number => Math.max(256, 8 * bins + 64);

/**
 * A report group's quantile sketch being merged (never a builder's: its cells keep QuantileBins,
 * whose memory a flood of distinct cells is bounded by): the counts of keys lo .. lo + width - 1
 * in slots of a shared arena (slot-arena.ts), so a part's sorted bins add straight into their
 * slots, with no hashing per bin and no sort at the end. A window too wide for the bins it holds
 * (1 ms and 1e9 ms in one group) is kept sparse instead (a Map) until enough bins fill it
 * (widestFor); a window never spans more than the mapping's 1,723 keys (13.8 KB) whatever the
 * values. Either way `toSketch` gives the very sketch QuantileBins gives for the same parts:
 * counts are integers below 2^53 and only add up, in any order.
 */
export class DenseQuantileBins {
  count = 0;
  zeros = 0;
  min = Infinity;
  max = -Infinity;
  /** The window: slots[at + k - lo] counts key k, for lo <= k < lo + width. */
  private slots = WINDOWS.chunk;
  private at = 0;
  private lo = 0;
  private width = 0;
  /** Non-empty slots of the window. */
  private used = 0;
  /** Slots taken from the arena so far (a grown window leaves its old slots behind): what it costs. */
  private taken = 0;
  /** The bins while they are too spread out for a window (then the window is empty): key -> count. */
  private sparse: Map<number, number> | undefined = undefined;
  /** The span of the sparse bins' keys (for the way back to dense). */
  private sparseLo = KEYS;
  private sparseHi = -1;
  /** toSketch's answer until the next add. */
  private made: QuantileSketch | undefined = undefined;

  /**
   * The bins of these sketches together, the window placed for all of them at once: a group's
   * parts stop being held as they are here (pending-quantiles.ts), and together they decide better
   * than the first alone whether their span is worth a window.
   */
  static of(parts: readonly QuantileSketch[]): DenseQuantileBins {
    const out = new DenseQuantileBins();
    let first = KEYS;
    let last = -1;
    let n = 0;
    for (const part of parts) {
      const keys = part.keys;
      if (keys.length === 0) continue;
      n += keys.length;
      if (keys[0]! < first) first = keys[0]!;
      if (keys[keys.length - 1]! > last) last = keys[keys.length - 1]!;
    }
    if (n > 0 && !out.fit(first, last, n)) out.toSparse();
    for (const part of parts) out.add(part);
    return out;
  }

  /** Adds a part of any form (never kept: the part may be shared). */
  add(part: QuantileSource): void {
    const s = part instanceof QuantileBins || part instanceof DenseQuantileBins ? part.toSketch() : part;
    this.addBins(s.count, s.zeros, s.min, s.max, s.keys, s.counts, s.keys.length);
  }

  /** The first `n` bins of `keys`/`counts` (strictly ascending keys), read here and not kept. */
  addBins(
    count: number,
    zeros: number,
    min: number,
    max: number,
    keys: ArrayLike<number>,
    counts: ArrayLike<number>,
    n: number,
  ): void {
    if (count === 0) return;
    const total = this.count + count;
    if (!Number.isSafeInteger(total)) throw new RangeError('a quantile sketch holds at most 2^53 - 1 values');
    this.count = total;
    this.zeros += zeros;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
    this.made = undefined;
    if (n === 0) return;
    if (this.sparse) return this.addSparse(keys, counts, n);
    if (keys[0]! < this.lo || keys[n - 1]! >= this.lo + this.width) {
      if (!this.fit(keys[0]!, keys[n - 1]!, n)) return this.addSparse(keys, counts, n);
    }
    const slots = this.slots;
    const offset = this.at - this.lo;
    let used = this.used;
    for (let i = 0; i < n; i++) {
      const slot = offset + keys[i]!;
      const held = slots[slot]!;
      if (held === 0) used++;
      slots[slot] = held + counts[i]!;
    }
    this.used = used;
  }

  /** The merged sketch (kept until the next add). */
  toSketch(): QuantileSketch {
    if (this.made) return this.made;
    if (this.count === 0) return EMPTY_QUANTILES;
    const { count, zeros, min, max, sparse } = this;
    let keys: Uint16Array;
    let counts: Float64Array;
    if (sparse) {
      keys = Uint16Array.from(sparse.keys()).sort();
      counts = new Float64Array(keys.length);
      for (let i = 0; i < keys.length; i++) counts[i] = sparse.get(keys[i]!)!;
    } else {
      keys = new Uint16Array(this.used);
      counts = new Float64Array(this.used);
      for (let slot = 0, i = 0; slot < this.width; slot++) {
        const c = this.slots[this.at + slot]!;
        if (c === 0) continue;
        keys[i] = this.lo + slot;
        counts[i++] = c;
      }
    }
    return (this.made = { count, zeros, min, max, keys, counts });
  }

  /**
   * The merged sketch in arrays every DenseQuantileBins shares, valid until the next view():
   * what a report's answer reads once per group, without a sketch of its own (toSketch to keep one).
   */
  view(): QuantileSketch {
    if (this.made || this.sparse || this.count === 0) return this.toSketch();
    let n = 0;
    for (let slot = this.at, end = this.at + this.width, key = this.lo; slot < end; slot++, key++) {
      const c = this.slots[slot]!;
      if (c === 0) continue;
      VIEW_KEYS[n] = key;
      VIEW_COUNTS[n++] = c;
    }
    const keys = (KEY_VIEWS[n] ??= VIEW_KEYS.subarray(0, n));
    const counts = (COUNT_VIEWS[n] ??= VIEW_COUNTS.subarray(0, n));
    return { count: this.count, zeros: this.zeros, min: this.min, max: this.max, keys, counts };
  }

  /**
   * The nearest-rank percentile q (quantileAnswer's answer over toSketch()), read from the window
   * in place: its slots walked from the nearer end to the rank, no bins copied.
   */
  quantileAnswer(q: number): QuantileAnswer {
    const rank = nearestRank(this.count, q);
    const edge = edgeAnswer(this, rank);
    if (edge) return edge;
    if (this.sparse) return quantileAnswer(this.toSketch(), q);
    const binned = this.count - this.zeros;
    const r = rank - this.zeros;
    const slots = this.slots;
    if (2 * r > binned) {
      let need = binned - r + 1;
      for (let slot = this.at + this.width - 1; slot >= this.at; slot--)
        if ((need -= slots[slot]!) <= 0) return binAnswer(this.lo + slot - this.at, this);
    } else {
      let need = r;
      for (let slot = this.at, end = this.at + this.width; slot < end; slot++)
        if ((need -= slots[slot]!) <= 0) return binAnswer(this.lo + slot - this.at, this);
    }
    throw new Error('quantile bins hold fewer values than they count');
  }

  /** Approximate heap bytes: the object, 8 bytes a slot taken, 40 a sparse bin. */
  bytes(): number {
    return 160 + 8 * this.taken + (this.sparse ? 40 * this.sparse.size : 0);
  }

  /**
   * The window grown to hold keys first..last with room to spare (a part lands near the last
   * ones), its counts moved over; false when that is too wide for its bins (`n`: the part's).
   */
  private fit(first: number, last: number, n: number): boolean {
    const empty = this.width === 0;
    const lo = empty ? first : Math.min(first, this.lo);
    const hi = empty ? last : Math.max(last, this.lo + this.width - 1);
    const need = hi - lo + 1;
    const widest = widestFor(this.used + n);
    if (need > widest) return false;
    const room = Math.min(widest - need, need >> 2);
    const from = Math.max(0, lo - (empty || first < this.lo ? room : 0));
    const to = Math.min(KEYS - 1, hi + (empty || last >= this.lo + this.width ? room : 0));
    this.move(from, to - from + 1);
    return true;
  }

  /** The window moved to keys lo .. lo + width - 1 of new slots (which hold every key it held). */
  private move(lo: number, width: number): void {
    const at = WINDOWS.take(width);
    const slots = WINDOWS.chunk;
    if (this.width > 0) slots.set(this.slots.subarray(this.at, this.at + this.width), at + this.lo - lo);
    this.slots = slots;
    this.at = at;
    this.lo = lo;
    this.width = width;
    this.taken += width;
  }

  /** From a window to sparse bins (its slots stay behind in the arena, counted in `taken`). */
  private toSparse(): Map<number, number> {
    const bins = (this.sparse = new Map<number, number>());
    this.sparseLo = KEYS;
    this.sparseHi = -1;
    for (let slot = 0; slot < this.width; slot++) {
      const c = this.slots[this.at + slot]!;
      if (c === 0) continue;
      bins.set(this.lo + slot, c);
      if (this.lo + slot < this.sparseLo) this.sparseLo = this.lo + slot;
      this.sparseHi = this.lo + slot;
    }
    this.width = 0;
    this.used = 0;
    return bins;
  }

  private addSparse(keys: ArrayLike<number>, counts: ArrayLike<number>, n: number): void {
    const bins = this.sparse ?? this.toSparse();
    for (let i = 0; i < n; i++) bins.set(keys[i]!, (bins.get(keys[i]!) ?? 0) + counts[i]!);
    if (keys[0]! < this.sparseLo) this.sparseLo = keys[0]!;
    if (keys[n - 1]! > this.sparseHi) this.sparseHi = keys[n - 1]!;
    if (this.sparseHi - this.sparseLo + 1 <= widestFor(bins.size)) this.dense(bins);
  }

  /** From sparse back to a window (enough bins fill their span now). */
  private dense(bins: Map<number, number>): void {
    this.width = 0;
    this.move(this.sparseLo, this.sparseHi - this.sparseLo + 1);
    for (const [key, c] of bins) this.slots[this.at + key - this.lo] = c;
    this.used = bins.size;
    this.sparse = undefined;
  }
}

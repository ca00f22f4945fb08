import { DenseQuantileBins } from './dense-quantile-bins';
import { QUANTILE_SKETCH } from './quantile-mapping';
import type { QuantileSketch } from './quantile-model';
import { binAnswer, edgeAnswer, nearestRank, type QuantileAnswer } from './quantile-query';

/**
 * The most parts a group holds as they are. A percentile over them walks every part's bins at
 * once, picking the next key among the parts, so past a few parts bins of the group's own (a
 * dense window) answer faster; and a group stays within about what its parts hold.
 */
const MOST_PARTS = 16;
/** The most bins the held parts have together before they are folded into bins of the group's own. */
const MOST_BINS = 1024;

/** Each part's next bin in a walk (one answer at a time in a process). */
const AT = new Int32Array(MOST_PARTS);
const NO_KEY = QUANTILE_SKETCH.maxKey + 1;

/**
 * A report group's quantile parts held as they are (stored sketches, shared and never written),
 * with their totals: most groups of a wide report have a few small parts a measure (a p90 of
 * engaged time by content id at 1M events: 3,476 parts, 3.4 bins each, in 1,620 groups), and a
 * window of counts of their own (dense-quantile-bins.ts) cost each of them a few hundred slots
 * made, zeroed and walked for a handful of bins. A percentile is read from the parts themselves:
 * the rank's key found by walking their sorted bins together from the nearer end. Past
 * MOST_PARTS parts or MOST_BINS bins the parts are folded into dense bins (`add` returns them);
 * every other answer (toSketch) is the sketch of the parts together, the same as dense bins give.
 */
export class PendingQuantiles {
  count = 0;
  zeros = 0;
  min = Infinity;
  max = -Infinity;
  private bins = 0;
  private readonly parts: QuantileSketch[] = [];
  private made: QuantileSketch | undefined = undefined;

  constructor(parts: readonly QuantileSketch[]) {
    // the walk's cursors are made for MOST_PARTS parts
    if (parts.length > MOST_PARTS)
      throw new RangeError(`a group holds at most ${MOST_PARTS} quantile parts as they are`);
    for (const part of parts) this.take(part);
  }

  /** Whether one more part of `bins` bins stays within the bounds. */
  static holds(parts: number, bins: number): boolean {
    return parts <= MOST_PARTS && bins <= MOST_BINS;
  }

  /** This state with `part` added: itself, or the parts folded into dense bins past the bounds. */
  add(part: QuantileSketch): PendingQuantiles | DenseQuantileBins {
    if (part.count === 0) return this;
    if (!PendingQuantiles.holds(this.parts.length + 1, this.bins + part.keys.length))
      return DenseQuantileBins.of([...this.parts, part]);
    this.take(part);
    return this;
  }

  /** The nearest-rank percentile q (quantileAnswer's answer over the parts' sketch together). */
  quantileAnswer(q: number): QuantileAnswer {
    const rank = nearestRank(this.count, q);
    return edgeAnswer(this, rank) ?? binAnswer(this.keyAt(rank - this.zeros), this);
  }

  /** The parts' sketch together (kept until the next add). */
  toSketch(): QuantileSketch {
    return (this.made ??= DenseQuantileBins.of(this.parts).toSketch());
  }

  /**
   * Approximate heap bytes: the object, a reference per part and the bins of the parts it keeps
   * alive (10 bytes a bin; a raw span's parts may be held by nothing else). At most 16 parts of
   * 1,024 bins together: about what a dense window of the same span would take.
   */
  bytes(): number {
    return 96 + 16 * this.parts.length + 10 * this.bins;
  }

  private take(part: QuantileSketch): void {
    if (part.count === 0) return;
    const total = this.count + part.count;
    if (!Number.isSafeInteger(total)) throw new RangeError('a quantile sketch holds at most 2^53 - 1 values');
    this.count = total;
    this.zeros += part.zeros;
    if (part.min < this.min) this.min = part.min;
    if (part.max > this.max) this.max = part.max;
    this.parts.push(part);
    this.bins += part.keys.length;
    this.made = undefined;
  }

  /**
   * The key of the r-th smallest value above zero (1-based): the parts' bins walked together from
   * the nearer end, each step taking the next key among them with its count in every part.
   */
  private keyAt(r: number): number {
    const parts = this.parts;
    const n = parts.length;
    const binned = this.count - this.zeros;
    const down = 2 * r > binned;
    let need = down ? binned - r + 1 : r;
    for (let j = 0; j < n; j++) AT[j] = down ? parts[j]!.keys.length - 1 : 0;
    for (;;) {
      let key = down ? -1 : NO_KEY;
      for (let j = 0; j < n; j++) {
        const i = AT[j]!;
        const keys = parts[j]!.keys;
        if (i < 0 || i >= keys.length) continue;
        if (down ? keys[i]! > key : keys[i]! < key) key = keys[i]!;
      }
      if (key === -1 || key === NO_KEY) throw new Error('quantile parts hold fewer values than they count');
      for (let j = 0; j < n; j++) {
        const i = AT[j]!;
        const part = parts[j]!;
        if (i < 0 || i >= part.keys.length || part.keys[i] !== key) continue;
        need -= part.counts[i]!;
        AT[j] = down ? i - 1 : i + 1;
      }
      if (need <= 0) return key;
    }
  }
}

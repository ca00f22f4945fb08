import { MEASURE_NAMES } from '@cm/contracts';
import { DenseQuantileBins, type QuantileSource } from '../sketches/dense-quantile-bins';
import { PendingQuantiles } from '../sketches/pending-quantiles';
import { QuantileBins } from '../sketches/quantile-bins';
import { quantileBytes, type QuantileSketch } from '../sketches/quantile-sketch';
import { MEASURE_LIST } from './measure-list';

/**
 * Per measure (MEASURE_NAMES order) its values' bins, null without values: a builder's cell holds
 * QuantileBins, a stored state is read as sketches (immutable, shared by a page cache), and a
 * report group holds its parts as they are (PendingQuantiles), then merges into DenseQuantileBins.
 */
export type QuantilesState = Array<QuantileSource | PendingQuantiles | null>;

/** How many measures (read once: the package's export is a getter, costly in the merge's loop). */
const MEASURES = MEASURE_LIST.length;

/** Every measure, a bit each (MEASURE_NAMES order). */
export const ALL = (1 << MEASURES) - 1;

/** Shared and frozen: never written (the merges copy it first). */
export const EMPTY: QuantilesState = Object.freeze(MEASURE_NAMES.map(() => null)) as QuantilesState;

/**
 * The builder's merge: `part` into `target`'s QuantileBins (its cells' sparse form, bounded for a
 * flood of distinct cells), a measure's first part copied into bins of its own.
 */
export function mergeInto(target: QuantilesState, part: QuantilesState): QuantilesState {
  if (part === EMPTY) return target;
  const out = target === EMPTY ? MEASURE_LIST.map(() => null) : target;
  for (let m = 0; m < MEASURE_LIST.length; m++) {
    const source = part[m];
    if (!source) continue;
    const held = out[m];
    let bins: QuantileBins;
    if (held instanceof QuantileBins) bins = held;
    else {
      // a state read from a page, held as it is by its first owner: bins of its own from here
      bins = new QuantileBins();
      if (held) bins.addSketch(sketchOf(held));
      out[m] = bins;
    }
    if (source instanceof QuantileBins) bins.addBins(source);
    else bins.addSketch(sketchOf(source));
  }
  return out;
}

/**
 * The report's merge: `part` (of any form: a page's, a raw row's, another group's) into
 * `target`'s measures. A measure's first part is held as its sketch, shared and never written
 * (a page's stored state as it is, or a snapshot of bins that may change): most groups of a wide
 * report have one part a measure, and copy nothing. Its next parts are held beside it, as they
 * are too (PendingQuantiles), until they are more than a walk over them answers well from; then
 * they are folded into dense bins of the group's own, which take every later part.
 * `measures`: a bit per measure (MEASURE_NAMES order) to merge, the others left out.
 */
export function reportMergeInto(target: QuantilesState, part: QuantilesState, measures = ALL): QuantilesState {
  if (part === EMPTY) return target;
  const out = target === EMPTY ? fresh() : target;
  for (let m = 0; m < MEASURES; m++) {
    if (!(measures & (1 << m))) continue;
    const source = part[m];
    if (!source || source.count === 0) continue;
    const held = out[m];
    const sketch = sketchOf(source);
    if (held instanceof DenseQuantileBins) held.add(sketch);
    else if (held instanceof PendingQuantiles) out[m] = held.add(sketch);
    else if (!held || held.count === 0) out[m] = sketch;
    else out[m] = new PendingQuantiles([sketchOf(held), sketch]);
  }
  return out;
}

/** A state with no bins yet, to merge into (a loop: a copy of the frozen EMPTY takes V8's slow path). */
function fresh(): QuantilesState {
  const out: QuantilesState = [];
  for (let m = 0; m < MEASURES; m++) out.push(null);
  return out;
}

/** The sketch of a measure's bins, whatever holds them. */
export function sketchOf(source: QuantileSource | PendingQuantiles): QuantileSketch {
  // a report group's forms first: its merge asks this of every part and state
  return source instanceof PendingQuantiles || source instanceof DenseQuantileBins || source instanceof QuantileBins
    ? source.toSketch()
    : source;
}

/** Approximate heap bytes of a measure's bins (the report's bound, a page cache's size). */
export function bytesOf(source: QuantileSource | PendingQuantiles): number {
  return source instanceof PendingQuantiles || source instanceof DenseQuantileBins || source instanceof QuantileBins
    ? source.bytes()
    : quantileBytes(source);
}

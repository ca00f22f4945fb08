import { seededHashes } from '../../test/support/seeded-hashes';
import { countOf, sketchOf, uniquesAggregate } from '../metrics/uniques-aggregate';
import { DistinctAccumulator } from './distinct-accumulator';
import {
  DISTINCT_SKETCH,
  emptySketch,
  mergeSketches,
  sketchCount,
  sketchOfHashes,
  type DistinctSketch,
} from './distinct-sketch';

const LIMIT = DISTINCT_SKETCH.exactLimit;
const { reportOwn, reportMergeInto } = uniquesAggregate as Required<typeof uniquesAggregate>;

/** A small generator of part sizes and pool picks (the hashes themselves come from seededHashes). */
function picks(seed: number): (n: number) => number {
  const next = seededHashes(seed);
  return (n) => next() % n;
}

/**
 * Parts as a report meets them: visitors drawn from a pool (so parts overlap, as returning
 * visitors do), hashes alike in their low 32 bits, the hash 0, sets past the exact limit.
 */
function randomParts(seed: number): DistinctSketch[] {
  const pick = picks(seed);
  const fresh = seededHashes(seed + 1);
  const poolSize = [20, 500, 3000, 9000][pick(4)]!;
  const pool = Array.from({ length: poolSize }, (_, i) => (i % 17 === 0 ? (i + 1) * 2 ** 32 : i === 1 ? 0 : fresh()));
  return Array.from({ length: 1 + pick(24) }, () => {
    const size = [0, 1, 3, 30, 700, LIMIT + 50][pick(6)]!;
    return sketchOfHashes(Array.from({ length: size }, () => pool[pick(pool.length)]!));
  });
}

const view = (s: DistinctSketch) => (s.kind === 'exact' ? { exact: [...s.hashes] } : { hll: [...s.registers] });

describe('a report group merging visitor sets with the accumulator', () => {
  it('when 200 random mixes of parts are merged, then the count and the union equal the pure merge of the sketches', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const parts = randomParts(seed);
      const pure = parts.reduce((a, b) => mergeSketches(a, b), emptySketch());
      let state = reportOwn(parts[0]!);
      for (const part of parts.slice(1)) state = reportMergeInto(state, part);
      expect({ seed, count: countOf(state) }).toEqual({ seed, count: sketchCount(pure) });
      expect(view(sketchOf(state))).toEqual(view(pure));
    }
  });

  it('when accumulators are merged into each other (groups into a total), then the union is the same as from the parts', () => {
    for (let seed = 400; seed < 450; seed++) {
      const parts = randomParts(seed);
      const half = Math.ceil(parts.length / 2);
      const [a, b] = [new DistinctAccumulator(parts[0]!), new DistinctAccumulator(emptySketch())];
      parts.slice(1, half).forEach((p) => a.add(p));
      parts.slice(half).forEach((p) => b.add(p));
      a.add(b);
      const pure = parts.reduce((x, y) => mergeSketches(x, y), emptySketch());
      expect(view(a.sketch())).toEqual(view(pure));
    }
  });

  it('when an accumulator is asked whether it is empty, then it answers as the sketch of its union would', () => {
    const { isEmpty } = uniquesAggregate;
    expect(isEmpty(new DistinctAccumulator(emptySketch()))).toBe(true);
    expect(isEmpty(reportMergeInto(reportOwn(emptySketch()), emptySketch()))).toBe(true);
    expect(isEmpty(reportMergeInto(reportOwn(emptySketch()), sketchOfHashes([7])))).toBe(false);
  });

  it('when a group has one part, then it holds that part as it is and never writes it', () => {
    const part = sketchOfHashes([5, 9, 12]);
    const held = reportOwn(part);
    expect(held).toBe(part);
    const merged = reportMergeInto(held, sketchOfHashes([1, 2]));
    expect(view(part)).toEqual({ exact: [5, 9, 12] });
    expect(countOf(merged)).toEqual({ value: 5, exact: true });
  });

  it("when a group's accumulator is the first part of another group (a total over rows), then merging into that group leaves the row's as it was", () => {
    const row = reportMergeInto(reportOwn(sketchOfHashes([1, 2, 3])), sketchOfHashes([4]));
    expect(row).toBeInstanceOf(DistinctAccumulator);
    const total = reportMergeInto(reportOwn(row), sketchOfHashes([5, 6]));
    expect(countOf(total)).toEqual({ value: 6, exact: true });
    expect(countOf(row)).toEqual({ value: 4, exact: true });
  });

  it('when parts of thousands of hashes meet, then the group keeps an accumulator and a stored part is never written', () => {
    const next = seededHashes(7);
    const big = sketchOfHashes(Array.from({ length: 2000 }, next));
    const copy = view(big);
    const state = reportMergeInto(reportOwn(big), sketchOfHashes(Array.from({ length: 2000 }, next)));
    expect(state).toBeInstanceOf(DistinctAccumulator);
    expect(countOf(state)).toEqual({ value: 4000, exact: true });
    expect(view(big)).toEqual(copy);
    // past the exact limit: the estimate, as the sorted sets would give it
    const past = reportMergeInto(state, sketchOfHashes(Array.from({ length: 200 }, next)));
    expect(countOf(past).exact).toBe(false);
  });

  it("when an accumulator's memory is counted, then it grows with its table and is bounded by the registers past the limit", () => {
    const next = seededHashes(11);
    const acc = new DistinctAccumulator(emptySketch());
    const small = acc.bytes();
    acc.add(sketchOfHashes(Array.from({ length: 1000 }, next)));
    expect(acc.bytes()).toBeGreaterThan(small);
    acc.add(sketchOfHashes(Array.from({ length: LIMIT }, next)));
    expect(acc.bytes()).toBe(160 + DISTINCT_SKETCH.registers);
  });
});

import { seededHashes } from '../../test/support/seeded-hashes';
import { DISTRIBUTIONS } from '../../test/support/value-distributions';
import { DenseQuantileBins } from './dense-quantile-bins';
import { QuantileBins } from './quantile-bins';
import { encodeQuantiles, quantileAnswer, quantilesOf, shareAnswer, type QuantileSketch } from './quantile-sketch';

const hex = (s: QuantileSketch): string => Buffer.from(encodeQuantiles(s)).toString('hex');

/** Parts as a report meets them: a few values of one shape each, some empty, some of one value, some far apart. */
function randomParts(trial: number): number[][] {
  const next = seededHashes(7100 + trial);
  return Array.from({ length: 1 + (next() % 30) }, () => {
    const pick = next() % 10;
    if (pick === 0) return [];
    if (pick === 1) return [next() % 2 === 0 ? 1 : 1_000_000_000];
    if (pick === 2) return Array.from({ length: 1 + (next() % 3) }, () => [0, 1, 128, 129, 2 ** 53 - 1][next() % 5]!);
    const distribution = DISTRIBUTIONS[next() % DISTRIBUTIONS.length]!;
    return distribution.draw([1, 2, 5, 40, 300][next() % 5]!, next() % 100_000);
  });
}

/** The same parts into the builder's sparse bins and into the report's dense ones, in the forms a report merges. */
function bothOf(parts: number[][], trial: number): { sparse: QuantileBins; dense: DenseQuantileBins } {
  const sparse = new QuantileBins();
  const dense = new DenseQuantileBins();
  parts.forEach((values, i) => {
    const sketch = quantilesOf(values);
    sparse.addSketch(sketch);
    // a stored sketch as read, a raw row's bins, or another group's dense bins
    const form = (trial + i) % 3;
    if (form === 0) dense.add(sketch);
    else if (form === 1) {
      const bins = new QuantileBins();
      for (const v of values) bins.addValue(v);
      dense.add(bins);
    } else {
      const other = new DenseQuantileBins();
      other.add(sketch);
      dense.add(other);
    }
  });
  return { sparse, dense };
}

describe('DenseQuantileBins', () => {
  test('when random parts are merged, then the dense bins give the very sketch and answers the sparse bins give, percentiles read in place too', () => {
    for (let trial = 0; trial < 400; trial++) {
      const parts = randomParts(trial);
      const { sparse, dense } = bothOf(parts, trial);
      const expected = sparse.toSketch();
      // read in place first (no sketch made yet), then the view: once toSketch() made a sketch, view() gives that one
      for (const q of [0, 0.01, 0.1, 0.5, 0.9, 0.99, 1])
        expect(dense.quantileAnswer(q)).toEqual(quantileAnswer(expected, q));
      expect(dense.view()).toEqual(expected);
      for (const q of [0, 0.01, 0.5, 0.9, 0.99, 1])
        expect(quantileAnswer(dense.view(), q)).toEqual(quantileAnswer(expected, q));
      for (const t of [0, 1, 100, 129, 30_000, 1e9])
        expect(shareAnswer(dense.view(), t)).toEqual(shareAnswer(expected, t));
      expect(hex(dense.toSketch())).toBe(hex(expected));
      expect(dense.toSketch()).toEqual(expected);
      expect(dense.count).toBe(sparse.count);
      expect(hex(quantilesOf(parts.flat()))).toBe(hex(expected));
    }
  });

  test('when two sketches start a group (DenseQuantileBins.of), then it equals adding them one by one', () => {
    for (let trial = 0; trial < 200; trial++) {
      const [a = [], b = []] = randomParts(trial + 1000);
      const joined = DenseQuantileBins.of([quantilesOf(a), quantilesOf(b)]);
      expect(hex(joined.toSketch())).toBe(hex(quantilesOf([...a, ...b])));
    }
  });

  test('when a sketch is taken, further parts leave it as it was (a new one is made)', () => {
    const dense = new DenseQuantileBins();
    dense.add(quantilesOf([5, 500]));
    const before = dense.toSketch();
    const copy = hex(before);
    dense.add(quantilesOf([5, 7_000]));
    expect(hex(before)).toBe(copy);
    expect(hex(dense.toSketch())).toBe(hex(quantilesOf([5, 500, 5, 7_000])));
  });

  test('when a group holds 1 ms and 1e9 ms, then its window stays small (sparse) until enough bins fill the span', () => {
    const dense = new DenseQuantileBins();
    dense.add(quantilesOf([1]));
    dense.add(quantilesOf([1_000_000_000]));
    expect(dense.bytes()).toBeLessThan(3_000);
    // every key between them, one value each: now a window pays
    const between = Array.from({ length: 1_100 }, (_, i) => Math.round(1.0202 ** i));
    for (const v of between) dense.add(quantilesOf([v]));
    const sketch = dense.toSketch();
    expect(hex(sketch)).toBe(hex(quantilesOf([1, 1_000_000_000, ...between])));
    // never past the mapping's keys (8 bytes each), plus what a growing window left behind
    expect(dense.bytes()).toBeLessThan(160 + 40 * sketch.keys.length + 3 * 8 * 1_723);
  });

  test('when the values of a group span every key, then its bytes stay within a few times its sparse form', () => {
    const next = seededHashes(42);
    for (let trial = 0; trial < 50; trial++) {
      const dense = new DenseQuantileBins();
      const sparse = new QuantileBins();
      for (let i = 0; i < 1 + (next() % 200); i++) {
        const v = Math.floor(2 ** ((next() % 5300) / 100));
        dense.add(quantilesOf([v]));
        sparse.addValue(v);
      }
      expect(dense.bytes()).toBeLessThan(4 * sparse.bytes() + 8 * 256 * 3);
    }
  });

  test('when counts pass 2^53 - 1, then it refuses them as the sparse bins do', () => {
    const dense = new DenseQuantileBins();
    dense.addBins(2 ** 53 - 2, 0, 5, 5, [4], [2 ** 53 - 2], 1);
    expect(() => dense.addBins(2, 0, 5, 5, [4], [2], 1)).toThrow(RangeError);
  });
});

import { seededHashes } from '../../test/support/seeded-hashes';
import { DISTRIBUTIONS } from '../../test/support/value-distributions';
import { QUANTILE_SKETCH } from './quantile-mapping';
import {
  addValue,
  decodeQuantiles,
  emptyQuantiles,
  encodeQuantiles,
  mergeAllQuantiles,
  mergeQuantiles,
  quantileBytes,
  quantileCount,
  quantilesOf,
  type QuantileSketch,
} from './quantile-sketch';

const hex = (s: QuantileSketch): string => Buffer.from(encodeQuantiles(s)).toString('hex');

function expectSame(x: QuantileSketch, y: QuantileSketch): void {
  expect(x).toEqual(y);
  expect(hex(x)).toBe(hex(y));
}

/** Three random sets from mixed distributions, some empty, some tiny, some with zeros. */
function randomSets(trial: number): [number[], number[], number[]] {
  const next = seededHashes(500 + trial);
  const pick = (): number[] => {
    const size = [0, 1, 2, 10, 100, 3000][next() % 6]!;
    return DISTRIBUTIONS[next() % DISTRIBUTIONS.length]!.draw(size, next() % 1000);
  };
  return [pick(), pick(), pick()];
}

describe('quantile sketch laws', () => {
  test('when random sets are merged, then merging is commutative and associative, empty is neutral, and the merge of two sketches is the sketch of the union', () => {
    for (let trial = 0; trial < 40; trial++) {
      const [A, B, C] = randomSets(trial);
      const [a, b, c] = [quantilesOf(A), quantilesOf(B), quantilesOf(C)];
      const before = [a, b, c].map(hex);

      const ab = mergeQuantiles(a, b);
      expectSame(ab, quantilesOf([...A, ...B]));
      expectSame(ab, mergeQuantiles(b, a));
      expectSame(mergeQuantiles(ab, c), mergeQuantiles(a, mergeQuantiles(b, c)));
      expectSame(mergeQuantiles(a, emptyQuantiles()), a);
      expectSame(mergeQuantiles(emptyQuantiles(), a), a);
      expect(quantileCount(ab)).toBe(A.length + B.length);

      expect([a, b, c].map(hex)).toEqual(before);
      expect(quantileCount(emptyQuantiles())).toBe(0);
    }
  });

  test('when values are added one at a time, with counts and repeats, then the sketch is the one built from the whole list and each step leaves the previous sketch unchanged', () => {
    for (let trial = 0; trial < 6; trial++) {
      const [A, B] = randomSets(100 + trial);
      let s = quantilesOf(A);
      const first = s;
      const before = hex(first);
      for (const value of B.slice(0, 300)) s = addValue(s, value);
      s = addValue(s, 0, 3);
      s = addValue(s, 12_345, 2);
      expectSame(s, quantilesOf([...A, ...B.slice(0, 300), 0, 0, 0, 12_345, 12_345]));
      expect(hex(first)).toBe(before);
    }
  });

  test('when a sketch is encoded and decoded, then it is the same sketch, for every distribution and size', () => {
    for (let trial = 0; trial < 20; trial++) {
      for (const set of randomSets(200 + trial)) {
        const s = quantilesOf(set);
        expectSame(decodeQuantiles(encodeQuantiles(s)), s);
      }
    }
  });

  test('when a value is not a non-negative safe integer, or a count is not a positive integer, then it is refused', () => {
    for (const bad of [-1, 0.5, NaN, Infinity, 2 ** 53, '5' as unknown as number]) {
      expect(() => addValue(emptyQuantiles(), bad)).toThrow(RangeError);
      expect(() => quantilesOf([1, bad])).toThrow(RangeError);
    }
    for (const bad of [0, -1, 1.5, NaN]) expect(() => addValue(emptyQuantiles(), 5, bad)).toThrow(RangeError);
  });

  test('when every bin from 1 to the largest accepted value is used, then the sketch stays within the bin limit and its memory and stored bytes are bounded', () => {
    const values: number[] = [0, Number.MAX_SAFE_INTEGER];
    for (let v = 1; v < Number.MAX_SAFE_INTEGER; v = v < 1000 ? v + 1 : Math.floor(v * 1.005)) values.push(v);
    const s = quantilesOf(values);
    expect(s.keys.length).toBe(QUANTILE_SKETCH.maxKey + 1);
    expect(s.keys.length).toBeLessThanOrEqual(QUANTILE_SKETCH.binLimit);
    expect(quantileBytes(s)).toBeLessThan(20_000);
    expect(encodeQuantiles(s).length).toBeLessThan(6_000);
    expect(quantileBytes(emptyQuantiles())).toBeLessThan(quantileBytes(s));
  });
});

describe('mergeAllQuantiles', () => {
  test('when many sketches are merged in one pass, then it is the pairwise merge and the sketch of all values, and the next merge starts clean', () => {
    for (let trial = 0; trial < 30; trial++) {
      const sets = [...randomSets(trial), ...randomSets(trial + 100)];
      const sketches = sets.map((values) => quantilesOf(values));
      const pairwise = sketches.reduce(mergeQuantiles, emptyQuantiles());
      expectSame(mergeAllQuantiles(sketches), pairwise);
      expectSame(mergeAllQuantiles(sketches), quantilesOf(sets.flat()));
    }
    expectSame(mergeAllQuantiles([]), emptyQuantiles());
    const one = quantilesOf([3, 0, 900]);
    expect(mergeAllQuantiles([emptyQuantiles(), one, emptyQuantiles()])).toBe(one);
  });
});

import { DISTRIBUTIONS, exactQuantile } from '../../test/support/value-distributions';
import { seededHashes } from '../../test/support/seeded-hashes';
import { binRange, keyOf } from './quantile-mapping';
import { quantileAnswer, quantilesOf, shareAnswer } from './quantile-sketch';

// `exact` is a claim about the answer: true exactly when the sketch alone proves the answer equals
// the exact one (the nearest-rank value, the exact share), false when two sets of values with this
// very sketch have different exact answers. Both halves are checked: every true claim against the
// values, and every false one by building those two sets.

const QS = [0, 0.01, 0.07, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1];
const shareOf = (values: readonly number[], t: number): number => values.filter((v) => v >= t).length / values.length;

/**
 * The two extreme sets with the sketch of `sorted`: every value of bin `key` (but one copy of min
 * and of max, which the sketch knows) moved to the lowest, or to the highest, integer the bin and
 * [min, max] allow. Both have exactly the sketch of `sorted`.
 */
function extremesOfBin(sorted: readonly number[], key: number): [number[], number[]] {
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const [lo, hi] = binRange(key);
  const low = Math.max(lo, min);
  const high = Math.min(hi, max);
  const move = (to: number): number[] => {
    let keptMin = false;
    let keptMax = false;
    const out = sorted.map((v) => {
      if (v === 0 || keyOf(v) !== key) return v;
      if (v === min && !keptMin) return ((keptMin = true), v);
      if (v === max && !keptMax) return ((keptMax = true), v);
      return to;
    });
    return out.sort((a, b) => a - b);
  };
  return [move(low), move(high)];
}

/** Checks every quantile and share claim of `values`; returns how many were exact (true) and approximate (false). */
function checkClaims(values: readonly number[], thresholds: readonly number[]): { exact: number; approximate: number } {
  const sorted = values.slice().sort((a, b) => a - b);
  const s = quantilesOf(values);
  let exact = 0;
  let approximate = 0;
  for (const q of QS) {
    const { value, exact: claimed } = quantileAnswer(s, q);
    const truth = exactQuantile(sorted, q);
    if (claimed) {
      expect([q, value]).toEqual([q, truth]);
      exact++;
      continue;
    }
    // not exact: the rank's value lies in a bin the sketch cannot see into, and both extremes share the sketch
    const [low, high] = extremesOfBin(sorted, keyOf(truth));
    expect(quantilesOf(low)).toEqual(s);
    expect(quantilesOf(high)).toEqual(s);
    expect(exactQuantile(low, q)).not.toBe(exactQuantile(high, q));
    approximate++;
  }
  for (const t of thresholds) {
    const { value, exact: claimed } = shareAnswer(s, t);
    if (claimed) {
      expect([t, value]).toEqual([t, shareOf(sorted, t)]);
      exact++;
      continue;
    }
    const [low, high] = extremesOfBin(sorted, keyOf(t));
    expect(quantilesOf(low)).toEqual(s);
    expect(quantilesOf(high)).toEqual(s);
    expect(shareOf(low, t)).not.toBe(shareOf(high, t));
    approximate++;
  }
  return { exact, approximate };
}

describe('quantile sketch: exact claims', () => {
  test('when a row holds a single value, then every percentile is that value and exact, whatever its size', () => {
    for (const v of [0, 1, 128, 129, 5_000, 3_600_000, 1e12]) {
      const s = quantilesOf([v, v, v]);
      for (const q of QS) expect(quantileAnswer(s, q)).toEqual({ value: v, exact: true });
      expect(shareAnswer(s, v)).toEqual({ value: 1, exact: true });
      expect(shareAnswer(s, v + 1)).toEqual({ value: 0, exact: true });
    }
  });

  test('when the threshold is above every value or at or below the smallest, then the share is exact', () => {
    const s = quantilesOf([4_000, 90_000, 3_600_000]);
    expect(shareAnswer(s, 3_600_001)).toEqual({ value: 0, exact: true });
    expect(shareAnswer(s, 1e12)).toEqual({ value: 0, exact: true });
    expect(shareAnswer(s, 4_000)).toEqual({ value: 1, exact: true });
    expect(shareAnswer(s, 10)).toEqual({ value: 1, exact: true });
  });

  test('when every value is in the exact bins (up to 128), then every answer is exact', () => {
    const { approximate } = checkClaims([0, 3, 3, 50, 99, 100, 100, 128], [0, 1, 2, 50, 51, 100, 128, 129, 1000]);
    expect(approximate).toBe(0);
  });

  test("when the threshold's bin holds only the known min or max, then the share counts them exactly", () => {
    // 10,000 .. 10,100 share a bin answering 9,999.5: only as the min and max does the sketch know their side of 10,050
    expect(keyOf(10_000)).toBe(keyOf(10_100));
    expect(shareAnswer(quantilesOf([10_000, 10_100]), 10_050)).toEqual({ value: 0.5, exact: true });
    expect(shareAnswer(quantilesOf([5, 10_100]), 10_050)).toEqual({ value: 0.5, exact: true });
    expect(shareAnswer(quantilesOf([10_000, 10_000, 20_000]), 10_050)).toEqual({ value: 1 / 3, exact: false });
    // a third value in the bin, 10,040, is on a side the sketch cannot know
    expect(shareAnswer(quantilesOf([10_000, 10_040, 10_100]), 10_050).exact).toBe(false);
  });

  test('when values spread over the logarithmic bins, then a percentile inside a bin is not claimed exact', () => {
    const s = quantilesOf([1_000, 1_001, 1_002, 1_003, 50_000]);
    expect(quantileAnswer(s, 0.5).exact).toBe(false);
    expect(quantileAnswer(s, 0).exact).toBe(true);
    expect(quantileAnswer(s, 1).exact).toBe(true);
  });

  test('when random sets are sketched, then every exact claim is the exact answer and every other answer is one the sketch cannot know', () => {
    let exact = 0;
    let approximate = 0;
    for (let trial = 0; trial < 300; trial++) {
      const next = seededHashes(31_000 + trial);
      const size = [1, 2, 3, 5, 10, 40, 400][trial % 7]!;
      const distribution = DISTRIBUTIONS[trial % DISTRIBUTIONS.length]!;
      // few distinct values too: repeated values are where exact answers above 128 happen
      const values =
        trial % 3 === 0
          ? Array.from({ length: size }, () => [0, 300, 301, 302, 10_000, 1e12][next() % 6]!)
          : distribution.draw(size, trial);
      const sorted = values.slice().sort((a, b) => a - b);
      const thresholds = [1, 128, 129, 300, 301, 10_000, 10_050, 3_600_001, 1e12 + 1];
      for (const v of sorted.filter((_, i) => i % Math.ceil(size / 5) === 0)) thresholds.push(v, v + 1, v * 1.005);
      const counted = checkClaims(values, thresholds);
      exact += counted.exact;
      approximate += counted.approximate;
    }
    // both kinds were really checked
    expect(exact).toBeGreaterThan(1000);
    expect(approximate).toBeGreaterThan(1000);
  });
});

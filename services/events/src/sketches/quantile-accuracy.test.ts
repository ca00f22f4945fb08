import { DISTRIBUTIONS, exactQuantile } from '../../test/support/value-distributions';
import { seededHashes } from '../../test/support/seeded-hashes';
import {
  emptyQuantiles,
  mergeQuantiles,
  QUANTILE_SKETCH,
  quantileAnswer,
  quantileAt,
  quantilesOf,
  shareAnswer,
  shareAtLeast,
  type QuantileSketch,
} from './quantile-sketch';

const ALPHA = QUANTILE_SKETCH.relativeAccuracy;
const PERCENTILES = [0, 0.5, 0.75, 0.9, 0.99, 1];

/** Within 1 % of exact (a zero exactly); the slack is floating-point rounding of the midpoint only. */
function expectClose(sketch: number | null, exact: number): void {
  expect(sketch).not.toBeNull();
  expect(Math.abs(sketch! - exact)).toBeLessThanOrEqual(ALPHA * exact * (1 + 1e-12));
}

/** The sketch of `values` built as a report builds it: cells of up to 1,000 values, merged. */
function cellSketch(values: number[]): QuantileSketch {
  let s = emptyQuantiles();
  for (let i = 0; i < values.length; i += 1000) s = mergeQuantiles(s, quantilesOf(values.slice(i, i + 1000)));
  return s;
}

const share = (values: readonly number[], test: (v: number) => boolean): number =>
  values.filter(test).length / values.length;

describe('quantile sketch accuracy', () => {
  test('when the sketch is empty, then quantiles and shares are null', () => {
    expect(quantileAt(emptyQuantiles(), 0.5)).toBeNull();
    expect(shareAtLeast(emptyQuantiles(), 10)).toBeNull();
  });

  test.each(DISTRIBUTIONS.flatMap((d) => [1_000, 50_000].map((n) => [d.name, n] as const)))(
    'when %s (%i values) is sketched in merged cells, then p0/p50/p75/p90/p99/p100 are within 1 % of the exact nearest-rank values',
    (name, n) => {
      const values = DISTRIBUTIONS.find((d) => d.name === name)!.draw(n, n + name.length);
      const sorted = values.slice().sort((a, b) => a - b);
      const s = cellSketch(values);
      for (const q of PERCENTILES) {
        const { value, exact } = quantileAnswer(s, q);
        expectClose(value, exactQuantile(sorted, q));
        // an answer said to be exact is the nearest-rank value itself
        if (exact) expect(value).toBe(exactQuantile(sorted, q));
      }
      expect(quantileAnswer(s, 0)).toEqual({ value: sorted[0], exact: true });
      expect(quantileAnswer(s, 1)).toEqual({ value: sorted[n - 1], exact: true });
      expect(quantileAt(s, 0)).toBe(sorted[0]);
      expect(quantileAt(s, 1)).toBe(sorted[n - 1]);
    },
  );

  test('when tiny sets of 1 to 10 values are sketched, then every percentile is within 1 %, and exact for values up to 128', () => {
    for (let trial = 0; trial < 200; trial++) {
      const next = seededHashes(9000 + trial);
      const n = 1 + (trial % 10);
      const small = trial % 2 === 0;
      const values = Array.from({ length: n }, () => (small ? next() % 129 : next() % 1e12));
      const sorted = values.slice().sort((a, b) => a - b);
      const s = quantilesOf(values);
      for (const q of [...PERCENTILES, 0.25, 0.33, 0.07]) {
        const exact = exactQuantile(sorted, q);
        const answer = quantileAnswer(s, q);
        if (small) expect(answer).toEqual({ value: exact, exact: true });
        else expectClose(answer.value, exact);
        if (answer.exact) expect(answer.value).toBe(exact);
      }
    }
  });

  test('when the share at or above a threshold is asked, then only values within 1 % of the threshold can be counted on the wrong side', () => {
    for (const { name, draw } of DISTRIBUTIONS) {
      const values = draw(20_000, name.length);
      const sorted = values.slice().sort((a, b) => a - b);
      const s = cellSketch(values);
      const thresholds = [0, 1, 2, 49, 90, 128, 129, 130, 1_000, 30_000, 30_001, 3_600_000, 1e12, 2e12, 12.5];
      for (const q of [0.1, 0.5, 0.9, 0.99]) thresholds.push(exactQuantile(sorted, q), exactQuantile(sorted, q) + 1);
      for (const t of thresholds) {
        const got = shareAtLeast(s, t)!;
        // every value at least t / (1 - alpha) is counted, none at most t (1 - alpha)
        expect(got).toBeGreaterThanOrEqual(share(values, (v) => v >= t / (1 - ALPHA)));
        expect(got).toBeLessThanOrEqual(share(values, (v) => v >= t || v > t * (1 - ALPHA)));
        const { exact } = shareAnswer(s, t);
        if (t <= 128 || t <= sorted[0]! || t > sorted[sorted.length - 1]!) expect(exact).toBe(true);
        if (exact) expect(got).toBe(share(values, (v) => v >= t));
      }
    }
  });

  test('when a threshold or quantile is out of range, then it is refused, and thresholds past the range answer 0 or 1', () => {
    const s = quantilesOf([0, 5, 10]);
    for (const bad of [-0.1, 1.1, NaN]) expect(() => quantileAt(s, bad)).toThrow(RangeError);
    expect(() => shareAtLeast(s, NaN)).toThrow(RangeError);
    expect(shareAtLeast(s, -5)).toBe(1);
    expect(shareAtLeast(s, Infinity)).toBe(0);
    expect(shareAtLeast(quantilesOf([Number.MAX_SAFE_INTEGER]), 2 ** 60)).toBe(0);
  });
});

import { hashStream, seededHashes } from '../../test/support/seeded-hashes';
import {
  DISTINCT_SKETCH,
  emptySketch,
  mergeInto,
  sketchCount,
  sketchOfHashes,
  type DistinctSketch,
} from './distinct-sketch';
import { estimateCardinality } from './hll-estimate';

const SE = DISTINCT_SKETCH.relativeStandardError;

/** A sketch of `n` random hashes, built from shards of at most a million merged into one (a faithful union). */
function randomSketch(seed: number, n: number): DistinctSketch {
  const next = seededHashes(seed);
  let s = emptySketch();
  for (let done = 0; done < n; done += 1_000_000)
    s = mergeInto(s, sketchOfHashes(hashStream(next, Math.min(1_000_000, n - done))));
  return s;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

describe('distinct sketch accuracy', () => {
  test('when the registers are all zero, then the estimate is 0', () => {
    expect(estimateCardinality(new Uint8Array(DISTINCT_SKETCH.registers))).toBe(0);
  });

  test.each([1, 10, 100, 1_000, 4_096])('when %i distinct hashes are counted, then the count is exact', (n) => {
    for (let trial = 0; trial < 5; trial++) {
      expect(sketchCount(randomSketch(n * 100 + trial, n))).toEqual({ value: n, exact: true });
    }
  });

  test.each([
    [4_097, 200],
    [10_000, 100],
    [100_000, 20],
    [1_000_000, 5],
    [10_000_000, 2],
  ])(
    'when %i distinct hashes are estimated (%i trials), then the p99 relative error is within 3.5 standard errors',
    (n, trials) => {
      const errors: number[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const count = sketchCount(randomSketch(n + trial, n));
        expect(count.exact).toBe(false);
        errors.push(Math.abs(count.value / n - 1));
      }
      errors.sort((a, b) => a - b);
      expect(quantile(errors, 0.99)).toBeLessThan(3.5 * SE);
    },
  );

  test('when sets grow past the exact limit, through 5m/2 where classic HyperLogLog switches to linear counting, then the mean error shows no bias at any step', () => {
    const checkpoints = [4_097, 6_000, 10_000, 16_384, 25_000, 35_000, 40_960, 46_000, 60_000, 100_000];
    const trials = 100;
    const sums = checkpoints.map(() => 0);
    for (let trial = 0; trial < trials; trial++) {
      const next = seededHashes(50_000 + trial);
      let s = emptySketch();
      let n = 0;
      checkpoints.forEach((at, i) => {
        s = mergeInto(s, sketchOfHashes(hashStream(next, at - n)));
        n = at;
        sums[i]! += sketchCount(s).value / at - 1;
      });
    }
    // the mean of `trials` independent errors has a standard error of SE / sqrt(trials)
    const means = sums.map((sum) => sum / trials);
    for (const mean of means) expect(Math.abs(mean)).toBeLessThan((4 * SE) / Math.sqrt(trials));
  });
});

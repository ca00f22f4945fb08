import { visitorPopulation } from '../../test/support/visitor-population';
import { sampleOfRows } from '../../test/support/visitor-rows';
import {
  emptySample,
  FREQUENCY_BINS,
  frequencyOf,
  mergeSampleInto,
  onTargetReachOf,
  type Estimate,
} from './visitor-sample';

/** About 10 % and about 50 % of the population (home countries; travellers add a little). */
const TARGETS = [new Set(['FR']), new Set(['US', 'DE', 'GB'])];

interface Outcome {
  /** |estimate / truth - 1| in stated relative errors. */
  z: number;
  name: string;
}

/** One seeded campaign of n visitors in 24 hourly cells, merged: every answer's error in stated errors. */
function trial(seed: number, n: number): Outcome[] {
  const { visitors, cells } = visitorPopulation(seed, n, 24);
  const s = emptySample();
  for (const cell of cells) mergeSampleInto(s, sampleOfRows(cell));
  const f = frequencyOf(s);
  const answers: Array<[string, Estimate, number]> = FREQUENCY_BINS.map((bin) => [
    `${bin}+`,
    { value: f.atLeast[bin], exact: f.exact, relativeError: f.relativeError.atLeast[bin] },
    visitors.filter((v) => v.events >= bin).length,
  ]);
  TARGETS.forEach((targets, i) =>
    answers.push([
      `on target ${i}`,
      onTargetReachOf(s, targets),
      visitors.filter((v) => v.countries.some((c) => targets.has(c))).length,
    ]),
  );
  return answers.map(([name, answer, truth]) => {
    expect(answer.exact).toBe(false);
    return { name, z: Math.abs(answer.value / truth - 1) / answer.relativeError };
  });
}

describe('visitor sample accuracy', () => {
  test.each([
    [20_000, 12],
    [100_000, 2],
  ])(
    'when %i visitors with skewed frequencies are sampled from hourly cells (%i seeds), then every answer lies within 4 stated errors and about 95 % within 2',
    (n, seeds) => {
      const outcomes: Outcome[] = [];
      for (let seed = 0; seed < seeds; seed++) outcomes.push(...trial(n * 10 + seed, n));
      const worst = outcomes.reduce((a, b) => (b.z > a.z ? b : a));
      expect(worst.z).toBeLessThan(4);
      const within2 = outcomes.filter((o) => o.z <= 2).length / outcomes.length;
      expect(within2).toBeGreaterThan(0.85);
    },
  );
});

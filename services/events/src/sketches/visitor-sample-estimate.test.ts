import { visitorPopulation, type Visitor } from '../../test/support/visitor-population';
import { randomRows, sampleOfRows } from '../../test/support/visitor-rows';
import {
  addVisitor,
  emptySample,
  FREQUENCY_BINS,
  frequencyOf,
  mergeSampleInto,
  onTargetEventsOf,
  onTargetReachOf,
  reachOf,
  VISITOR_SAMPLE,
  type FrequencyAnswer,
  type FrequencyBin,
  type OnTargetAnswer,
  type VisitorSample,
} from './visitor-sample';

const K = VISITOR_SAMPLE.k;

function sampleOfPopulation(seed: number, n: number, cells: number): { s: VisitorSample; visitors: Visitor[] } {
  const { visitors, cells: rows } = visitorPopulation(seed, n, cells);
  const s = emptySample();
  for (const cell of rows) mergeSampleInto(s, sampleOfRows(cell));
  return { s, visitors };
}

/** On target the slow way: some event from a target country; `kept`: judged on the 4 smallest codes. */
function onTarget(visitors: Visitor[], targets: Set<string>, kept = false): number {
  return visitors.filter((v) => (kept ? [...v.countries].sort().slice(0, 4) : v.countries).some((c) => targets.has(c)))
    .length;
}

describe('visitor sample answers', () => {
  test('when a sample is empty, then every answer is an exact 0', () => {
    const s = emptySample();
    expect(reachOf(s)).toEqual({ value: 0, exact: true, relativeError: 0 });
    const f = frequencyOf(s);
    expect(f).toMatchObject({ reach: 0, exact: true, impressions: 0, averageFrequency: 0 });
    expect(Object.values(f.atLeast)).toEqual([0, 0, 0, 0, 0]);
    expect(onTargetReachOf(s, new Set(['FR']))).toEqual({ value: 0, exact: true, relativeError: 0, undetermined: 0 });
  });

  test.each([1, 100, 1_000, K])(
    'when a campaign reached %i visitors (at most K), then reach, frequency bins, impressions and on-target reach equal a brute-force count',
    (n) => {
      const { s, visitors } = sampleOfPopulation(n, n, 24);
      expect(reachOf(s)).toEqual({ value: n, exact: true, relativeError: 0 });
      const f: FrequencyAnswer = frequencyOf(s);
      const impressions = visitors.reduce((sum, v) => sum + v.events, 0);
      expect(f).toMatchObject({ reach: n, exact: true, impressions, averageFrequency: impressions / n });
      for (const bin of FREQUENCY_BINS as readonly FrequencyBin[]) {
        expect(f.atLeast[bin]).toBe(visitors.filter((v) => v.events >= bin).length);
        expect(f.relativeError.atLeast[bin]).toBe(0);
      }
      for (const targets of [new Set(['FR']), new Set(['US', 'DE', 'GB']), new Set<string>(), new Set(['ZZ'])]) {
        const answer: OnTargetAnswer = onTargetReachOf(s, targets);
        // the visitors with more than 4 countries are the only ones that could be in doubt
        expect(answer.value).toBe(onTarget(visitors, targets, true));
        expect(answer.value + answer.undetermined).toBeGreaterThanOrEqual(onTarget(visitors, targets));
        expect(answer.exact).toBe(answer.undetermined === 0);
      }
    },
  );

  test('when a visitor came from more countries than are kept, then on-target reach counts it only when a kept country is a target, and says what it cannot tell', () => {
    const s = emptySample();
    for (const c of ['US', 'AT', 'FR', 'DE', 'BE']) addVisitor(s, 1, 1, c); // keeps AT, BE, DE, FR
    addVisitor(s, 2, 3, 'US');
    addVisitor(s, 3, 1); // unknown country
    expect(onTargetReachOf(s, new Set(['DE']))).toEqual({ value: 1, exact: true, relativeError: 0, undetermined: 0 });
    // visitor 1 had a US event too, but US is not among its kept countries: never counted silently
    expect(onTargetReachOf(s, new Set(['US']))).toEqual({ value: 1, exact: false, relativeError: 0, undetermined: 1 });
    expect(onTargetReachOf(s, new Set(['IT']))).toEqual({ value: 0, exact: false, relativeError: 0, undetermined: 1 });
  });

  test('when target countries are not upper-case alpha-2 codes, then they are refused', () => {
    const s = sampleOfRows(randomRows(1, 10, 10));
    for (const bad of ['fr', 'France', '', '$where', 'F']) {
      expect(() => onTargetReachOf(s, new Set(['FR', bad]))).toThrow(RangeError);
    }
  });

  test('when a sample holds K of more visitors, then answers are estimates with a stated error, bins never rise with frequency and 1+ is the reach', () => {
    for (const n of [K + 4, 2 * K, 50_000]) {
      const { s } = sampleOfPopulation(7 + n, n, 24);
      const reach = reachOf(s);
      expect(reach.exact).toBe(false);
      expect(reach.relativeError).toBeGreaterThan(0);
      // barely past K the sample holds nearly everyone: its error is far below 1/sqrt(K)
      if (n === K + 4) expect(reach.relativeError).toBeLessThan(0.002);
      if (n === 50_000) expect(reach.relativeError).toBeCloseTo(1 / Math.sqrt(K), 2);
      const f = frequencyOf(s);
      expect(f.reach).toBe(reach.value);
      expect(f.atLeast[1]).toBe(reach.value);
      expect(f.averageFrequency).toBe(f.impressions / f.reach);
      const bins = FREQUENCY_BINS.map((b) => f.atLeast[b]);
      expect([...bins].sort((a, b) => b - a)).toEqual(bins);
      const errors = FREQUENCY_BINS.map((b) => f.relativeError.atLeast[b]);
      expect([...errors].sort((a, b) => a - b)).toEqual(errors);
    }
  });

  test('when on-target impressions are asked of an exact sample, then they are the events of the on-target visitors, the others in doubt stated', () => {
    const s = emptySample();
    addVisitor(s, 1, 3, 'FR');
    addVisitor(s, 2, 2, 'DE');
    addVisitor(s, 2, 1, 'FR'); // a visitor on target by one event: all its events count
    addVisitor(s, 3, 5, 'US');
    addVisitor(s, 4, 1); // unknown country
    for (const c of ['AT', 'BE', 'CH', 'DK', 'IT']) addVisitor(s, 5, 2, c); // keeps AT, BE, CH, DK: IT is in doubt
    expect(onTargetEventsOf(s, new Set(['FR']))).toEqual({
      value: 6,
      exact: false,
      relativeError: 0,
      undetermined: 10,
    });
    expect(onTargetEventsOf(s, new Set(['US', 'BE']))).toEqual({
      value: 15,
      exact: true,
      relativeError: 0,
      undetermined: 0,
    });
    expect(onTargetEventsOf(emptySample(), new Set(['FR']))).toEqual({
      value: 0,
      exact: true,
      relativeError: 0,
      undetermined: 0,
    });
  });

  test('when on-target impressions are estimated from a sample past K, then the truth lies within a few stated errors', () => {
    const n = 30_000;
    const { s, visitors } = sampleOfPopulation(99, n, 24);
    const targets = new Set(['DE', 'FR']);
    const truth = visitors.filter((v) => v.countries.some((c) => targets.has(c))).reduce((sum, v) => sum + v.events, 0);
    const answer = onTargetEventsOf(s, targets);
    expect(answer.exact).toBe(false);
    expect(answer.relativeError).toBeGreaterThan(0);
    expect(Math.abs(answer.value - truth) / truth).toBeLessThan(4 * answer.relativeError);
    // every visitor counted by on-target reach brings its events: reach never exceeds the impressions
    expect(onTargetReachOf(s, targets).value).toBeLessThanOrEqual(answer.value);
  });
});

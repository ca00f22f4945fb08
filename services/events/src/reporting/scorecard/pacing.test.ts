import { addVisitor, emptySample, reachOf, VISITOR_SAMPLE, type VisitorSample } from '../../sketches/visitor-sample';
import { seededHashes } from '../../../test/support/seeded-hashes';
import { pacingOf, type DayRead } from './pacing';

const sampleOf = (visitors: number[], events = 1): VisitorSample => {
  const s = emptySample();
  for (const v of visitors) addVisitor(s, v, events, 'FR');
  return s;
};
const day = (n: number, impressions: number, sample?: VisitorSample): DayRead => ({
  day: `2026-10-${String(n).padStart(2, '0')}`,
  dayOfFlight: n,
  impressions,
  ...(sample ? { sample } : {}),
});
const exact = (value: number) => ({ value, exact: true, error: null });

describe('pacingOf', () => {
  test('when visitors return on later days, then the cumulative reach counts each once and is set against the straight line', () => {
    const d1 = sampleOf([1, 2], 2);
    const { days, reached } = pacingOf(
      [day(1, 4, d1), day(2, 3, sampleOf([2, 3, 4])), day(3, 0), day(4, 2, sampleOf([1, 5]))],
      10,
      4,
    );
    expect(days).toEqual([
      { day: '2026-10-01', impressions: 4, reach: exact(2), goal_to_date: 2.5, pace: 'behind' },
      { day: '2026-10-02', impressions: 3, reach: exact(4), goal_to_date: 5, pace: 'behind' },
      { day: '2026-10-03', impressions: 0, reach: exact(4), goal_to_date: 7.5, pace: 'behind' },
      { day: '2026-10-04', impressions: 2, reach: exact(5), goal_to_date: 10, pace: 'behind' },
    ]);
    expect(reachOf(reached)).toEqual({ value: 5, exact: true, relativeError: 0 });
    // the day samples are only read
    expect(d1.size).toBe(2);
  });

  test('when reach meets or passes the line, then it is on pace or ahead; without a goal there is no line', () => {
    const read = [day(1, 2, sampleOf([1, 2])), day(2, 1, sampleOf([3]))];
    expect(pacingOf(read, 4, 4).days.map((d) => [d.goal_to_date, d.pace])).toEqual([
      [1, 'ahead'],
      [2, 'ahead'],
    ]);
    expect(pacingOf(read, 6, 3).days.map((d) => d.pace)).toEqual(['on_pace', 'behind']);
    for (const goal of [null, 0])
      expect(pacingOf(read, goal, 3).days.map((d) => [d.goal_to_date, d.pace])).toEqual([
        [null, null],
        [null, null],
      ]);
  });

  test('when the days hold more than K visitors together, then the cumulative reach becomes an estimate with its error', () => {
    const k = VISITOR_SAMPLE.k;
    const hash = seededHashes(11);
    const first = sampleOf(Array.from({ length: k }, hash));
    const second = sampleOf(Array.from({ length: k }, hash));
    const { days } = pacingOf([day(1, k, first), day(2, k, second)], 20_000, 10);
    expect(days[0]!.reach).toEqual(exact(k));
    expect(days[1]!.reach.exact).toBe(false);
    expect(days[1]!.reach.error).toBeGreaterThan(0);
    expect(Math.abs(days[1]!.reach.value - 2 * k) / (2 * k)).toBeLessThan(4 * days[1]!.reach.error!);
  });

  test('when there is no day yet, then there is no pacing and nobody reached', () => {
    const { days, reached } = pacingOf([], 100, 30);
    expect(days).toEqual([]);
    expect(reached.size).toBe(0);
  });
});

import { DAY_LEVEL, unitId, type UnitRef } from '../../rollups/rollup-units';
import { ZONE_DAY_LEVEL, zoneDayStart } from '../../rollups/zone-days';
import { HOUR_MS } from '../../storage/time-units';
import { zoneDaySeries } from '../../../test/support/zone-series';
import { planReport, type Coverage } from './plan-report';

const NY = 'America/New_York';
const T = (s: string) => Date.parse(s);
const iso = (t: number) => new Date(t).toISOString();
const covered = (...units: UnitRef[]): Coverage => ({
  built: new Map(units.map((unit) => [unitId(unit), { unit, g: `${unitId(unit)}@g` }])),
});
const nyDay = (at: string): UnitRef => ({ level: ZONE_DAY_LEVEL, start: zoneDayStart(NY, T(at))!, zone: NY });
const hours = (from: number, n: number): UnitRef[] =>
  Array.from({ length: n }, (_, i) => ({ level: 0, start: from + i * HOUR_MS }));
/** A New York day series of `n` days from the local date of `first`. */
const nySeries = (first: string, n: number) => zoneDaySeries(NY, T(first), n);

describe('planReport with zone days', () => {
  test('when each New York day of a series is built as a zone day, then each bucket is that one unit, DST days included', () => {
    const spans = nySeries('2026-03-07T12:00:00Z', 3);
    const days = spans.map((s) => ({ level: ZONE_DAY_LEVEL, start: s.start, zone: NY }));
    // the hours are built too: the zone day still wins, being one unit
    const plan = planReport(spans, covered(...days, ...hours(spans[0]!.start, 71)));
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.map((s) => [unitId(s.unit), s.time])).toEqual(days.map((d) => [unitId(d), d.start]));
    expect(spans.map((s) => (s.end - s.start) / HOUR_MS)).toEqual([24, 23, 24]);
  });

  test('when a zone day is not built, then its bucket falls back to the UTC units and raw events, as without zone days', () => {
    const spans = nySeries('2026-01-14T12:00:00Z', 2);
    const plan = planReport(spans, covered(nyDay('2026-01-15T12:00:00Z'), ...hours(spans[0]!.start, 24)));
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.filter((s) => s.time === spans[0]!.start).map((s) => s.unit.level)).toEqual(Array(24).fill(0));
    expect(plan.rollup.filter((s) => s.time === spans[1]!.start).map((s) => unitId(s.unit))).toEqual([
      unitId(nyDay('2026-01-15T12:00:00Z')),
    ]);
  });

  test('when a range spans whole UTC days and a zone day, then the larger unit at each point is taken and raw reads stop at the next built one', () => {
    const day = nyDay('2026-01-15T12:00:00Z');
    const utc = { level: DAY_LEVEL, start: T('2026-01-17T00:00:00Z') };
    const plan = planReport([{ start: T('2026-01-15T00:00:00Z'), end: T('2026-01-18T00:00:00Z') }], covered(day, utc));
    expect(plan.rollup.map((s) => unitId(s.unit))).toEqual([unitId(day), unitId(utc)]);
    expect(plan.raw.map((r) => [iso(r.from), iso(r.to)])).toEqual([
      ['2026-01-15T00:00:00.000Z', '2026-01-15T05:00:00.000Z'],
      ['2026-01-16T05:00:00.000Z', '2026-01-17T00:00:00.000Z'],
    ]);
  });

  test('when a zone day would reach past the span, then it is not used', () => {
    const day = nyDay('2026-01-15T12:00:00Z');
    const plan = planReport([{ start: day.start, end: day.start + 23 * HOUR_MS }], covered(day));
    expect(plan.rollup).toEqual([]);
    expect(plan.raw).toHaveLength(1);
  });
});

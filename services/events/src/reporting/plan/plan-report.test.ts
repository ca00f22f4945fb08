import { DAY_LEVEL, unitId, type UnitRef } from '../../rollups/rollup-units';
import { DAY_MS, HOUR_MS } from '../../storage/time-units';
import { EMPTY_COVERAGE, planReport, type Coverage } from './plan-report';

const T = (s: string) => Date.parse(s);
const covered = (...units: UnitRef[]): Coverage => ({
  built: new Map(units.map((unit) => [unitId(unit), { unit, g: `${unitId(unit)}@g` }])),
});
const hours = (from: string, n: number): UnitRef[] =>
  Array.from({ length: n }, (_, i) => ({ level: 0, start: T(from) + i * HOUR_MS }));
const day = (d: string): UnitRef => ({ level: DAY_LEVEL, start: T(`${d}T00:00:00Z`) });
const iso = (t: number) => new Date(t).toISOString();

describe('planReport', () => {
  test('when nothing is rolled up, then the whole span is one raw step', () => {
    const plan = planReport([{ start: T('2026-10-01T00:00:00Z'), end: T('2026-10-03T00:00:00Z') }], EMPTY_COVERAGE);
    expect(plan.rollup).toEqual([]);
    expect(plan.raw).toEqual([{ from: T('2026-10-01T00:00:00Z'), to: T('2026-10-03T00:00:00Z') }]);
  });

  test('when whole days, hours and second edges are in the range, then days come from days, hours from hours and the edges from raw', () => {
    const cov = covered(day('2026-10-02'), ...hours('2026-10-01T10:00:00Z', 14), ...hours('2026-10-03T00:00:00Z', 5));
    const plan = planReport([{ start: T('2026-10-01T09:15:30Z'), end: T('2026-10-03T05:00:01Z') }], cov);
    expect(plan.raw.map((r) => [iso(r.from), iso(r.to)])).toEqual([
      ['2026-10-01T09:15:30.000Z', '2026-10-01T10:00:00.000Z'],
      ['2026-10-03T05:00:00.000Z', '2026-10-03T05:00:01.000Z'],
    ]);
    expect(plan.rollup.filter((s) => s.unit.level === DAY_LEVEL).map((s) => iso(s.unit.start))).toEqual([
      '2026-10-02T00:00:00.000Z',
    ]);
    expect(plan.rollup.filter((s) => s.unit.level === 0)).toHaveLength(19);
  });

  test('when a day is not built but its hours are, except one dirty hour, then the hours are used and the dirty hour is raw', () => {
    const hs = hours('2026-10-02T00:00:00Z', 24).filter((_, i) => i !== 7);
    const plan = planReport([{ start: T('2026-10-02T00:00:00Z'), end: T('2026-10-03T00:00:00Z') }], covered(...hs));
    expect(plan.rollup).toHaveLength(23);
    expect(plan.raw.map((r) => [iso(r.from), iso(r.to)])).toEqual([
      ['2026-10-02T07:00:00.000Z', '2026-10-02T08:00:00.000Z'],
    ]);
  });

  test('when aligned blocks are built, then the largest that fit are taken', () => {
    // 2026-09-28 is epoch day 20724 (divisible by 4); 20736 (2026-10-10) by 16
    const blocks: UnitRef[] = [
      { level: 6, start: T('2026-09-28T00:00:00Z') },
      { level: 6, start: T('2026-10-02T00:00:00Z') },
      { level: 6, start: T('2026-10-06T00:00:00Z') },
      { level: 8, start: T('2026-10-10T00:00:00Z') },
      day('2026-10-26'),
      ...[...Array(31)].map((_, i) => ({ level: DAY_LEVEL, start: T('2026-09-28T00:00:00Z') + i * DAY_MS })),
    ];
    const plan = planReport([{ start: T('2026-09-28T00:00:00Z'), end: T('2026-10-27T00:00:00Z') }], covered(...blocks));
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.map((s) => [s.unit.level, iso(s.unit.start)])).toEqual([
      [6, '2026-09-28T00:00:00.000Z'],
      [6, '2026-10-02T00:00:00.000Z'],
      [6, '2026-10-06T00:00:00.000Z'],
      [8, '2026-10-10T00:00:00.000Z'],
      [DAY_LEVEL, '2026-10-26T00:00:00.000Z'],
    ]);
  });

  test('when a half-hour zone day is planned, then its two half hours come from raw and the rest from hours', () => {
    const span = { start: T('2026-10-14T18:30:00Z'), end: T('2026-10-15T18:30:00Z'), time: T('2026-10-14T18:30:00Z') };
    const plan = planReport([span], covered(...hours('2026-10-14T18:00:00Z', 25)));
    expect(plan.rollup).toHaveLength(23);
    expect(plan.rollup.every((s) => s.time === span.time)).toBe(true);
    expect(plan.raw.map((r) => [iso(r.from), iso(r.to), r.time])).toEqual([
      ['2026-10-14T18:30:00.000Z', '2026-10-14T19:00:00.000Z', span.time],
      ['2026-10-15T18:00:00.000Z', '2026-10-15T18:30:00.000Z', span.time],
    ]);
  });

  test('when a New York day is planned over 4-hour blocks, then it takes six units instead of 24 hours', () => {
    // 2026-10-15 in New York (-04:00) is 04:00Z..04:00Z: five 4-hour blocks from 04:00, one of the next day
    const units: UnitRef[] = [
      ...[4, 8, 12, 16, 20].map((h) => ({ level: 2, start: T('2026-10-15T00:00:00Z') + h * 3_600_000 })),
      { level: 2, start: T('2026-10-16T00:00:00Z') },
      ...hours('2026-10-15T04:00:00Z', 24),
    ];
    const plan = planReport([{ start: T('2026-10-15T04:00:00Z'), end: T('2026-10-16T04:00:00Z') }], covered(...units));
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.map((s) => s.unit.level)).toEqual([2, 2, 2, 2, 2, 2]);
  });

  test('when a day of a zone five hours behind is planned, then its first and last hours are hours and the rest 4-hour blocks', () => {
    // New York in winter (-05:00): 05:00Z..05:00Z: hours 05, 06, 07, 4h blocks 08..24 and 00..04, hour 04
    const units: UnitRef[] = [
      ...[8, 12, 16, 20, 24].map((h) => ({ level: 2, start: T('2026-11-15T00:00:00Z') + h * 3_600_000 })),
      ...hours('2026-11-15T05:00:00Z', 24),
    ];
    const plan = planReport([{ start: T('2026-11-15T05:00:00Z'), end: T('2026-11-16T05:00:00Z') }], covered(...units));
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.map((s) => s.unit.level)).toEqual([0, 0, 0, 2, 2, 2, 2, 2, 0]);
  });

  test('when two series spans meet, then their raw parts stay apart (each row time counts its own)', () => {
    const a = { start: T('2026-10-01T00:00:00Z'), end: T('2026-10-01T00:30:00Z'), time: 1 };
    const b = { start: T('2026-10-01T00:30:00Z'), end: T('2026-10-01T01:00:00Z'), time: 2 };
    expect(planReport([a, b], EMPTY_COVERAGE).raw).toHaveLength(2);
  });
});

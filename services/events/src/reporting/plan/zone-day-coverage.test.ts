import { ZONE_DAY_LEVEL } from '../../rollups/zone-days';
import { DAY_LEVEL, parseUnitId } from '../../rollups/rollup-units';
import type { UnitMark } from '../../rollups/unit-mark';
import { zoneDaySeries } from '../../../test/support/zone-series';
import { planReport } from './plan-report';
import { RollupCoverage, type CoverageMarks } from './rollup-coverage';

const NY = 'America/New_York';
const T = (s: string) => Date.parse(s);
const budget = { remainingMs: () => 1000, run: <T>(query: () => Promise<T>) => query() };

/** A New York day series of `n` days from the local date of `first`. */
const nySeries = (first: string, n: number) => zoneDaySeries(NY, T(first), n);

/** Marks where every unit asked for is built except `unbuilt`; the rounds record the ids of each query. */
function fakeMarks(unbuilt: ReadonlySet<string>) {
  const queries: string[][] = [];
  const marks: CoverageMarks = {
    byIds: (ids) => {
      queries.push([...ids]);
      return Promise.resolve(
        ids.map((id): UnitMark => {
          const unit = parseUnitId(id)!;
          const built = unbuilt.has(id) ? {} : { built: { started: 1, finished: 1, generation: `${id}@g` } };
          return {
            id,
            level: unit.level,
            start: unit.start,
            started: 1,
            finished: 1,
            at: new Date(0),
            dirty: false,
            ...built,
          };
        }),
      );
    },
    builtGenerations: () => Promise.resolve(new Map()),
  };
  return { marks, queries };
}

describe('RollupCoverage with zone days', () => {
  test('when a New York series has ended and its zone days are built, then one round asks the days and blocks and each zone day, no hour under them', async () => {
    const spans = nySeries('2026-01-02T12:00:00Z', 29);
    const { marks, queries } = fakeMarks(new Set());
    const found = await new RollupCoverage(marks, [NY], () => T('2026-11-27T00:00:00Z')).load(spans, budget, {
      zone: NY,
      family: 't',
    });
    const asked = queries.flat().map((id) => parseUnitId(id)!);
    expect(asked.filter((u) => u.level === ZONE_DAY_LEVEL)).toHaveLength(29);
    expect(asked.filter((u) => u.level < DAY_LEVEL)).toEqual([]);
    const plan = planReport(spans, found);
    expect(plan.raw).toEqual([]);
    expect(plan.rollup.map((s) => s.unit.level)).toEqual(Array(29).fill(ZONE_DAY_LEVEL));
  });

  test('when a zone day is not built or has not ended, then the hours and 4-hour units under it are asked and planned', async () => {
    const spans = nySeries('2026-11-20T12:00:00Z', 8);
    const dirty = `z:${NY}:${spans[2]!.start}`;
    // a zone day not ended is never built
    const { marks, queries } = fakeMarks(new Set([dirty, `z:${NY}:${spans[7]!.start}`]));
    // the last day has not ended: its smaller units in the first round, the dirty one's in later rounds
    const now = spans[7]!.start + 3_600_000;
    const found = await new RollupCoverage(marks, [NY], () => now).load(spans, budget, { zone: NY, family: 't' });
    const plan = planReport(spans, found);
    expect(plan.raw).toEqual([]);
    for (const i of [2, 7]) {
      const steps = plan.rollup.filter((s) => s.time === spans[i]!.start);
      expect(steps.every((s) => s.unit.level < DAY_LEVEL)).toBe(true);
      expect(steps.length).toBeGreaterThan(1);
    }
    expect(plan.rollup.filter((s) => s.unit.zone !== undefined)).toHaveLength(6);
    expect(queries.length).toBeGreaterThan(3);
  });

  test('when a New York report reads a family zone days do not keep, then no zone day is asked or planned, only UTC units', async () => {
    const spans = nySeries('2026-01-02T12:00:00Z', 5);
    for (const family of ['p', 'g', 'c', undefined]) {
      const { marks, queries } = fakeMarks(new Set());
      const found = await new RollupCoverage(marks, [NY], () => T('2026-11-27T00:00:00Z')).load(spans, budget, {
        zone: NY,
        ...(family === undefined ? {} : { family }),
      });
      expect(queries.flat().some((id) => id.startsWith('z:'))).toBe(false);
      expect([...found.built.values()].some((b) => b.unit.zone !== undefined)).toBe(false);
      const plan = planReport(spans, found);
      expect(plan.raw).toEqual([]);
      expect(plan.rollup.some((s) => s.unit.level === ZONE_DAY_LEVEL || s.unit.zone !== undefined)).toBe(false);
      // each New York day from its 4-hour units and hours around the UTC day it straddles
      expect(plan.rollup.length).toBeGreaterThan(5 * 3);
    }
  });

  test('when the report is in a zone not configured, or UTC, then no zone day is asked', async () => {
    const spans = nySeries('2026-01-02T12:00:00Z', 3);
    for (const zone of ['America/Chicago', 'UTC', undefined]) {
      const { marks, queries } = fakeMarks(new Set());
      await new RollupCoverage(marks, [NY]).load(spans, budget, zone === undefined ? {} : { zone, family: 't' });
      expect(queries.flat().some((id) => id.startsWith('z:'))).toBe(false);
    }
  });
});

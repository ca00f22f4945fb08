import { ValidationError } from '@cm/platform';
import { LEVELS, unitId, unitSizeMs, type UnitRef } from '../../rollups/rollup-units';
import { HOUR_MS } from '../../storage/time-units';
import {
  MAX_PLAN_HOURS,
  planReport,
  planReportYielding,
  type BuiltUnit,
  type Coverage,
  type PlanSpan,
  type ReportPlan,
} from './plan-report';
import { STEPS_PER_SLICE } from './sliced-work';

const T = (s: string) => Date.parse(s);

/** The plan by the definition: at every hour boundary the largest built unit that fits, else raw up to the next hour (joined). */
function referencePlan(spans: readonly PlanSpan[], coverage: Coverage): ReportPlan {
  const plan: ReportPlan = { rollup: [], raw: [] };
  for (const span of spans) {
    let at = span.start;
    while (at < span.end) {
      let taken: UnitRef | undefined;
      for (const level of [...LEVELS].reverse()) {
        if (taken) break;
        const size = unitSizeMs(level);
        if (at % size === 0 && at + size <= span.end && coverage.built.has(unitId({ level, start: at })))
          taken = { level, start: at };
      }
      if (taken) {
        plan.rollup.push({
          unit: taken,
          g: coverage.built.get(unitId(taken))!.g,
          ...(span.time === undefined ? {} : { time: span.time }),
        });
        at += unitSizeMs(taken.level);
        continue;
      }
      const next = Math.min(span.end, (Math.floor(at / HOUR_MS) + 1) * HOUR_MS);
      const last = plan.raw[plan.raw.length - 1];
      if (last && last.to === at && last.time === span.time) last.to = next;
      else plan.raw.push({ from: at, to: next, ...(span.time === undefined ? {} : { time: span.time }) });
      at = next;
    }
  }
  return plan;
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Built units that count the planner's lookups: the cost of a plan, counted instead of timed (a
 * walk hour by hour looks up every level at every hour; the planner pays per unit and raw part).
 */
class CountedUnits extends Map<string, BuiltUnit> {
  lookups = 0;
  override get(id: string): BuiltUnit | undefined {
    this.lookups++;
    return super.get(id);
  }
}

/** Runs `work` while a chain of setImmediate callbacks counts the event-loop turns other work was given meanwhile. */
async function turnsGivenDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}

describe('planReport bounds', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'when units are built at random (seed %d), then the plan equals the hour-by-hour definition',
    (seed) => {
      const rnd = random(seed);
      const base = T('2026-09-01T00:00:00Z');
      const built = new Map<string, BuiltUnit>();
      for (const level of LEVELS) {
        const size = unitSizeMs(level);
        for (let start = base; start < base + 70 * 86_400_000; start += size)
          if (rnd() < 0.3) built.set(unitId({ level, start }), { unit: { level, start }, g: `g${level}:${start}` });
      }
      const spans: PlanSpan[] = Array.from({ length: 6 }, (_, i) => {
        const start = base + Math.floor(rnd() * 60 * 86_400_000) + (rnd() < 0.5 ? 0 : Math.floor(rnd() * HOUR_MS));
        return { start, end: start + Math.floor(rnd() * 9 * 86_400_000) + 1, time: i % 3 === 0 ? undefined : i };
      });
      expect(planReport(spans, { built })).toEqual(referencePlan(spans, { built }));
    },
  );

  test('when a span covers the hard cap of hours with nothing built, then it is one raw step, planned without a lookup per hour', () => {
    const span = { start: T('2020-01-01T00:00:00Z') + 1234, end: T('2020-01-01T00:00:00Z') + MAX_PLAN_HOURS * HOUR_MS };
    const built = new CountedUnits();
    const plan = planReport([span], { built });
    expect(plan.raw).toEqual([{ from: span.start, to: span.end }]);
    // one step: at most one lookup per kept level (MAX_PLAN_HOURS of them walked hour by hour)
    expect(built.lookups).toBeLessThanOrEqual(LEVELS.length);
  });

  test('when one hour is built in the middle of the hard cap of hours, then the plan jumps to it: lookups per unit, not per hour', () => {
    const start = T('2020-01-01T00:00:00Z');
    const span = { start, end: start + MAX_PLAN_HOURS * HOUR_MS };
    const unit = { level: 0, start: start + 50_000 * HOUR_MS };
    const built = new CountedUnits([[unitId(unit), { unit, g: 'g1' }]]);
    const plan = planReport([span], { built });
    expect(plan).toEqual({
      rollup: [{ unit, g: 'g1' }],
      raw: [
        { from: span.start, to: unit.start },
        { from: unit.start + HOUR_MS, to: span.end },
      ],
    });
    expect(built.lookups).toBeLessThanOrEqual(3 * LEVELS.length);
  });

  test('when a span runs from 1970 to the year 275760, then planning is a 400 at once, not a RangeError or a walk', () => {
    const built = new CountedUnits();
    expect(() => planReport([{ start: 0, end: 8.64e15 }], { built })).toThrow(ValidationError);
    expect(built.lookups).toBe(0);
  });

  test('when an hour series of 10,000 buckets is planned for a report, then other work gets a turn of the event loop every STEPS_PER_SLICE steps', async () => {
    const start = T('2026-01-01T00:30:00Z');
    const spans: PlanSpan[] = Array.from({ length: 10_000 }, (_, i) => ({
      start: start + i * HOUR_MS,
      end: start + (i + 1) * HOUR_MS,
      time: start + i * HOUR_MS,
    }));
    const { result, turns } = await turnsGivenDuring(() => planReportYielding(spans, { built: new Map() }));
    expect(result).toEqual(referencePlan(spans, { built: new Map() }));
    // planned all at once, the waiting callbacks would get one turn at the end
    expect(turns).toBeGreaterThanOrEqual(spans.length / STEPS_PER_SLICE);
  });
});

import { ValidationError } from '@cm/platform';
import { LEVELS, unitId, unitSizeMs, type UnitRef } from '../../rollups/rollup-units';
import { HOUR_MS } from '../../storage/time-units';
import { MAX_PLAN_HOURS } from './plan-limits';
import { EMPTY_COVERAGE, planReport, type Coverage, type PlanSpan, type ReportPlan } from './plan-report';

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
          g: coverage.built.get(unitId(taken))!,
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

/** CPU milliseconds `fn` takes (not wall time: the machine may be busy with other work). */
function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('planReport bounds', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'when units are built at random (seed %d), then the plan equals the hour-by-hour definition',
    (seed) => {
      const rnd = random(seed);
      const base = T('2026-09-01T00:00:00Z');
      const built = new Map<string, string>();
      for (const level of LEVELS) {
        const size = unitSizeMs(level);
        for (let start = base; start < base + 70 * 86_400_000; start += size)
          if (rnd() < 0.3) built.set(unitId({ level, start }), `g${level}:${start}`);
      }
      const spans: PlanSpan[] = Array.from({ length: 6 }, (_, i) => {
        const start = base + Math.floor(rnd() * 60 * 86_400_000) + (rnd() < 0.5 ? 0 : Math.floor(rnd() * HOUR_MS));
        return { start, end: start + Math.floor(rnd() * 9 * 86_400_000) + 1, time: i % 3 === 0 ? undefined : i };
      });
      expect(planReport(spans, { built })).toEqual(referencePlan(spans, { built }));
    },
  );

  test('when a span covers the hard cap of hours with nothing built, then it is one raw step, planned in a few ms', () => {
    const span = { start: T('2020-01-01T00:00:00Z') + 1234, end: T('2020-01-01T00:00:00Z') + MAX_PLAN_HOURS * HOUR_MS };
    let plan: ReportPlan | undefined;
    expect(cpuMs(() => (plan = planReport([span], EMPTY_COVERAGE)))).toBeLessThan(20);
    expect(plan!.raw).toEqual([{ from: span.start, to: span.end }]);
  });

  test('when a span runs from 1970 to the year 275760, then planning is a 400 at once, not a RangeError or seconds of walking', () => {
    let error: unknown;
    const ms = cpuMs(() => {
      try {
        planReport([{ start: 0, end: 8.64e15 }], EMPTY_COVERAGE);
      } catch (err) {
        error = err;
      }
    });
    expect(error).toBeInstanceOf(ValidationError);
    expect(ms).toBeLessThan(20);
  });
});

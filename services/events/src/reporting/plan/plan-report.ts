import { ValidationError } from '@cm/platform';
import { LEVELS, MAX_LEVEL, unitEnd, unitId, unitSizeMs, type UnitRef } from '../../rollups/rollup-units';
import { HOUR_MS } from '../../storage/time-units';
import { runAtOnce, runYielding, STEPS_PER_SLICE, type SlicedWork } from './sliced-work';
import { nextZoneDayStart, zoneDayFrom, zoneDayIndex, type ZoneDayIndex } from './zone-day-coverage';

/** A span a report counts: [start, end) in epoch ms, tagged with the row time it belongs to. */
export interface PlanSpan {
  start: number;
  end: number;
  /** The `time` of the series row (undefined without an interval). */
  time?: number;
}

/** A built unit: the unit, parsed once where its mark was read, and its cell generation (`g`). */
export interface BuiltUnit {
  unit: UnitRef;
  g: string;
}

/** Rollup units whose cells equal their raw events right now, by unit id. */
export interface Coverage {
  built: ReadonlyMap<string, BuiltUnit>;
}

export interface RollupStep {
  unit: UnitRef;
  g: string;
  time?: number;
}

export interface RawStep {
  from: number;
  /** Exclusive. */
  to: number;
  time?: number;
}

export interface ReportPlan {
  rollup: RollupStep[];
  raw: RawStep[];
}

export const EMPTY_COVERAGE: Coverage = { built: new Map() };

/**
 * Hard bounds on what one report may plan, whatever its bounds and settings: the spans together
 * cover at most this many hours (about 11 years; REPORT_MAX_RANGE_DAYS is at most 4,000 days, so
 * an allowed range always fits), and there are at most this many spans (series buckets; the most
 * REPORT_MAX_BUCKETS allows). Checked before any loop walks hours, units or ids, so a bad bound
 * is a 400 in microseconds instead of seconds of blocked event loop or a RangeError.
 */
export const MAX_PLAN_HOURS = 100_000;
const MAX_PLAN_SPANS = 100_000;

export function checkPlanSize(spans: ReadonlyArray<{ start: number; end: number }>): void {
  let ms = 0;
  for (const s of spans) ms += Math.max(0, s.end - s.start);
  const hours = Math.ceil(ms / HOUR_MS);
  if (hours > MAX_PLAN_HOURS || spans.length > MAX_PLAN_SPANS) {
    throw new ValidationError('invalid body', [
      {
        field: 'created__gte',
        message: `the range is too long to plan (${hours} hours in ${spans.length} parts; at most ${MAX_PLAN_HOURS} hours)`,
      },
    ]);
  }
}

/**
 * Which parts of a report come from which rollup unit and which from raw events.
 * Each span is walked from its start: at every point the largest aligned unit that fits in the
 * span and is built is taken (32-day block down to one hour); where none is, raw events are read
 * up to the next start of a built unit that fits (past second-precision edges, a half-hour
 * zone's half hours, dirty or never built hours). A built zone day (a configured zone's local
 * day, rollups/zone-days.ts) that starts there and fits is taken when it is longer than the
 * largest UTC unit that does. Any choice is exact; the largest unit first
 * keeps the number of documents read low. The walk costs per unit and raw part, never per hour
 * of the range, and the spans' size is checked first (checkPlanSize).
 */
export function planReport(spans: readonly PlanSpan[], coverage: Coverage): ReportPlan {
  const work = planSteps(spans, coverage);
  return runAtOnce(work);
}

/** planReport, giving the event loop a turn every STEPS_PER_SLICE steps (a series of 10,000 buckets). */
export function planReportYielding(spans: readonly PlanSpan[], coverage: Coverage): Promise<ReportPlan> {
  const work = planSteps(spans, coverage);
  return runYielding(work);
}

/** planReport as sliced work, for a caller that runs it together with more (a report's round: its raw reads too). */
export function* planSteps(spans: readonly PlanSpan[], coverage: Coverage): SlicedWork<ReportPlan> {
  checkPlanSize(spans);
  const starts = builtStartsByLevel(coverage);
  const zoneDays = zoneDayIndex(coverage.built.values());
  // a turn after indexes of a slice's worth of units; a report over a few dozen units (most) plans
  // at once, with no turn of the event loop (each a tenth of a millisecond on a small report)
  if (coverage.built.size >= STEPS_PER_SLICE) yield;
  const plan: ReportPlan = { rollup: [], raw: [] };
  let steps = 0;
  for (const span of spans) {
    let at = span.start;
    while (at < span.end) {
      if (++steps % STEPS_PER_SLICE === 0) yield;
      const unit = largestBuiltUnit(at, span.end, coverage, zoneDays);
      if (unit) {
        plan.rollup.push({ unit: unit.unit, g: unit.g, ...(span.time === undefined ? {} : { time: span.time }) });
        at = unitEnd(unit.unit);
        continue;
      }
      // straight to where the next built unit fits: the cost is per unit used, not per hour walked
      const next = Math.min(span.end, nextFittingStart(starts, at, span.end), nextZoneDayStart(zoneDays, at, span.end));
      const last = plan.raw[plan.raw.length - 1];
      if (last && last.to === at && last.time === span.time) last.to = next;
      else plan.raw.push({ from: at, to: next, ...(span.time === undefined ? {} : { time: span.time }) });
      at = next;
    }
  }
  return plan;
}

function largestBuiltUnit(
  at: number,
  end: number,
  coverage: Coverage,
  zoneDays: ZoneDayIndex<BuiltUnit>,
): BuiltUnit | undefined {
  const zoned = zoneDayFrom(zoneDays, at, end);
  for (let i = LEVELS.length - 1; i >= 0; i--) {
    const level = LEVELS[i]!;
    const size = unitSizeMs(level);
    if (zoned && zoned.end - at > size) return zoned.built;
    if (at % size !== 0 || at + size > end) continue;
    const built = coverage.built.get(unitId({ level, start: at }));
    if (built) return built;
  }
  return zoned?.built;
}

/** The starts of the built units of each level, ascending. */
function builtStartsByLevel(coverage: Coverage): number[][] {
  const starts: number[][] = Array.from({ length: MAX_LEVEL + 1 }, () => []);
  for (const { unit } of coverage.built.values()) if (unit.zone === undefined) starts[unit.level]!.push(unit.start);
  for (const list of starts) list.sort((a, b) => a - b);
  return starts;
}

/** The first start after `at` of a built unit that ends by `end` (Infinity: none). Units of a level end in start order. */
function nextFittingStart(starts: readonly number[][], at: number, end: number): number {
  let best = Infinity;
  starts.forEach((list, level) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    const start = list[lo];
    if (start !== undefined && start + unitSizeMs(level) <= end) best = Math.min(best, start);
  });
  return best;
}

/** The spans around raw steps, aligned to a level's units: where units of that level might replace raw reads. */
export function spansToLookUp(plan: ReportPlan, level: number): Array<{ from: number; to: number }> {
  const size = unitSizeMs(level);
  const out: Array<{ from: number; to: number }> = [];
  for (const r of plan.raw) {
    const span = { from: Math.floor(r.from / size) * size, to: Math.ceil(r.to / size) * size };
    const last = out[out.length - 1];
    if (last && span.from <= last.to) last.to = Math.max(last.to, span.to);
    else out.push(span);
  }
  return out;
}

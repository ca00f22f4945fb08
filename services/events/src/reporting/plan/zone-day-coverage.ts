import { unitEnd, unitId, type UnitRef } from '../../rollups/rollup-units';
import { ZONE_DAY_LEVEL, zoneDayEnd } from '../../rollups/zone-days';
import { intervalStart } from '../request/zoned-time';
import { HOUR_MS } from '../../storage/time-units';

/** The built zone days of a coverage, by start, and each zone's in start order (they end in that order too). */
export interface ZoneDayIndex<T extends { unit: UnitRef }> {
  byStart: Map<number, T[]>;
  starts: Array<Array<{ start: number; end: number }>>;
}

export function zoneDayIndex<T extends { unit: UnitRef }>(built: Iterable<T>): ZoneDayIndex<T> {
  const byStart = new Map<number, T[]>();
  const byZone = new Map<string, Array<{ start: number; end: number }>>();
  for (const b of built) {
    const zone = b.unit.zone;
    if (zone === undefined) continue;
    byStart.set(b.unit.start, [...(byStart.get(b.unit.start) ?? []), b]);
    let list = byZone.get(zone);
    if (!list) byZone.set(zone, (list = []));
    list.push({ start: b.unit.start, end: unitEnd(b.unit) });
  }
  const starts = [...byZone.values()];
  for (const list of starts) list.sort((a, b) => a.start - b.start);
  return { byStart, starts };
}

/** The longest built zone day starting at `at` that ends by `end`, with its end. */
export function zoneDayFrom<T extends { unit: UnitRef }>(
  index: ZoneDayIndex<T>,
  at: number,
  end: number,
): { built: T; end: number } | undefined {
  let best: { built: T; end: number } | undefined;
  for (const b of index.byStart.get(at) ?? []) {
    const e = unitEnd(b.unit);
    if (e <= end && (!best || e > best.end)) best = { built: b, end: e };
  }
  return best;
}

/** The first start after `at` of a built zone day that ends by `end` (Infinity: none). */
export function nextZoneDayStart(index: ZoneDayIndex<{ unit: UnitRef }>, at: number, end: number): number {
  let best = Infinity;
  for (const list of index.starts) {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.start <= at) lo = mid + 1;
      else hi = mid;
    }
    const day = list[lo];
    if (day !== undefined && day.end <= end) best = Math.min(best, day.start);
  }
  return best;
}

/**
 * The zone's days that lie wholly inside a span (a day series' buckets in that zone are such
 * days, a range's whole local days too) and are whole UTC hours (a day of a historic offset has
 * no unit). One local-midnight walk per day: bounded by the plan's size (checkPlanSize).
 */
function* zoneDaysIn(zone: string, span: { start: number; end: number }): Generator<{ start: number; end: number }> {
  let start = intervalStart('day', zone, span.start);
  if (start < span.start) start = zoneDayEnd(zone, start);
  while (start < span.end) {
    const end = zoneDayEnd(zone, start);
    if (end > span.end) return;
    if (start % HOUR_MS === 0 && end % HOUR_MS === 0) yield { start, end };
    start = end;
  }
}

/** Ids of the zone's days inside the spans (zoneDaysIn), in chunks of `size`. */
export function* zoneDayIdChunks(
  zone: string,
  spans: ReadonlyArray<{ start: number; end: number }>,
  size: number,
): Generator<string[]> {
  let chunk: string[] = [];
  for (const span of spans) {
    for (const { start } of zoneDaysIn(zone, span)) {
      chunk.push(unitId({ level: ZONE_DAY_LEVEL, start, zone }));
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * The spans without the zone's days inside them that ended by `now`: where a plan needs smaller
 * units even when every unit is built. A zone day that has ended is usually built; where it is
 * not (a late write), the planner's later rounds ask the smaller units under it. A day not
 * ended yet cannot be built, so its smaller units are asked at once.
 */
export function outsideEndedZoneDays<T extends { start: number; end: number }>(
  zone: string,
  spans: readonly T[],
  now: number,
): T[] {
  const out: T[] = [];
  for (const span of spans) {
    let at = span.start;
    for (const day of zoneDaysIn(zone, span)) {
      if (day.end > now) break;
      if (day.start > at) out.push({ ...span, start: at, end: day.start });
      at = day.end;
    }
    if (at < span.end) out.push({ ...span, start: at, end: span.end });
  }
  return out;
}

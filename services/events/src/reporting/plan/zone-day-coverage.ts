import { unitEnd, unitId, type UnitRef } from '../../rollups/rollup-units';
import { ZONE_DAY_LEVEL, zoneDayEnd, zoneDayStart } from '../../rollups/zone-days';

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
 * Ids of the zone's days that lie wholly inside the spans (a day series' buckets in that zone are
 * such days, a range's whole local days too), in chunks of `size`. One local-midnight walk per
 * day of the spans: bounded by the plan's size (checkPlanSize).
 */
export function* zoneDayIdChunks(
  zone: string,
  spans: ReadonlyArray<{ start: number; end: number }>,
  size: number,
): Generator<string[]> {
  let chunk: string[] = [];
  for (const span of spans) {
    let start = zoneDayStart(zone, span.start) ?? span.start;
    if (start < span.start) start = zoneDayEnd(zone, start);
    while (start < span.end) {
      const end = zoneDayEnd(zone, start);
      if (end > span.end) break;
      // a day that is not whole UTC hours (a historic offset) has no unit
      if (zoneDayStart(zone, start) === start) chunk.push(unitId({ level: ZONE_DAY_LEVEL, start, zone }));
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
      start = end;
    }
  }
  if (chunk.length > 0) yield chunk;
}

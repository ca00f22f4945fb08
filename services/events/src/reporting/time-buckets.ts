import { HOUR_MS } from '../rollups/rollup-units';
import { offsetMs, wallTime, zonedInstant } from './time-zone';

export type Interval = 'hour' | 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month'];

/** One row time of a series: [start, end) in epoch ms, clipped to the report's range. */
export interface TimeBucket {
  /** The bucket's true start in the zone (what `time` shows, even when the range starts later). */
  time: number;
  start: number;
  end: number;
}

/** The start of the interval that contains `at`, in the zone. Weeks start on Monday (ISO 8601). */
export function intervalStart(interval: Interval, zone: string, at: number): number {
  if (interval === 'hour') {
    // zone hours start where the local minute is 0 (half-hour zones: at :30 UTC)
    const local = at + offsetMs(zone, at);
    return at - (((local % HOUR_MS) + HOUR_MS) % HOUR_MS);
  }
  const w = wallTime(zone, at);
  if (interval === 'month') return zonedInstant(zone, w.year, w.month, 1);
  if (interval === 'day') return zonedInstant(zone, w.year, w.month, w.day);
  const weekday = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7; // Monday 0
  return zonedInstant(zone, w.year, w.month, w.day - weekday);
}

/** The start of the next interval after the one starting at `start`. */
export function nextIntervalStart(interval: Interval, zone: string, start: number): number {
  if (interval === 'hour') {
    // re-aligned after the step: a 30-minute DST shift (Lord Howe) moves the local :00
    return intervalStart('hour', zone, start + HOUR_MS);
  }
  // midday of the bucket's first local day, so a DST shift cannot move us into the wrong day
  const w = wallTime(zone, start + 12 * HOUR_MS);
  if (interval === 'day') return zonedInstant(zone, w.year, w.month, w.day + 1);
  if (interval === 'week') return zonedInstant(zone, w.year, w.month, w.day + 7);
  return zonedInstant(zone, w.year, w.month + 1, 1);
}

/**
 * The buckets of [from, to] (inclusive ms) in the zone, or undefined when there would be more
 * than maxBuckets of them (the caller answers 400).
 */
export function timeBuckets(interval: Interval, zone: string, from: number, to: number, maxBuckets: number): TimeBucket[] | undefined {
  const out: TimeBucket[] = [];
  for (let start = intervalStart(interval, zone, from); start <= to; ) {
    const end = nextIntervalStart(interval, zone, start);
    if (out.length >= maxBuckets) return undefined;
    out.push({ time: start, start: Math.max(start, from), end: Math.min(end, to + 1) });
    start = end;
  }
  return out;
}

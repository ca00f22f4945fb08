import { DAY_MS, HOUR_MS } from '../../storage/time-units';
import { localDayStart, nextLocalDayStart, offsetMs, wallTime, zonedInstant } from '../../storage/zone-clock';
import type { ReportDate } from './report-dates';
import type { Interval, TimeBucket } from './report-query';

/**
 * A report's zoned time: a bound's bare date read in the zone, the start of the interval holding
 * an instant, and the row times of a series, over the zone arithmetic of storage/zone-clock.ts
 * (the series walk asks the zone's offset at every step).
 */
/** A bare date starts at midnight in the report's zone; anything with a time is an instant already. */
export function zonedStart(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day)) : date.start;
}

/** A bare date ends at the next midnight in the report's zone (inclusive ms). */
export function zonedEnd(date: ReportDate, zone: string): Date {
  return date.date ? new Date(zonedInstant(zone, date.date.year, date.date.month, date.date.day + 1) - 1) : date.end;
}

/** The start of the interval that contains `at`, in the zone. Weeks start on Monday (ISO 8601). */
export function intervalStart(interval: Interval, zone: string, at: number): number {
  if (interval === 'hour') return hourStart(zone, at);
  if (interval === 'day') return localDayStart(zone, at);
  const w = wallTime(zone, at);
  if (interval === 'month') return zonedInstant(zone, w.year, w.month, 1);
  const weekday = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7; // Monday 0
  return zonedInstant(zone, w.year, w.month, w.day - weekday);
}

/** The start of the next interval after the one starting at `start`. */
export function nextIntervalStart(interval: Interval, zone: string, start: number): number {
  if (interval === 'hour') return nextHourStart(zone, start);
  if (interval === 'day') return nextLocalDayStart(zone, start);
  // midday of the bucket's first local day, so a DST shift cannot move us into the wrong day
  const w = wallTime(zone, start + 12 * HOUR_MS);
  if (interval === 'week') return zonedInstant(zone, w.year, w.month, w.day + 7);
  return zonedInstant(zone, w.year, w.month + 1, 1);
}

/*
 * Hour buckets: one local clock hour at one offset. A bucket starts at every local full hour
 * (half-hour zones: at :30 UTC) and where the offset changes. With one-hour DST shifts the
 * changes fall on full hours (a repeated hour is two buckets, 01:00-04:00 and 01:00-05:00); with
 * Lord Howe's 30-minute shifts the hour the clocks jump in starts late (02:30+11:00, half an
 * hour) and the repeated half hour is its own bucket (01:30+10:30). Every label is a local time
 * that exists, and no bucket mixes two offsets.
 */
function hourStart(zone: string, at: number): number {
  const offset = offsetMs(zone, at);
  const start = at - floorMod(at + offset, HOUR_MS);
  return offsetMs(zone, start) === offset ? start : offsetChange(zone, start, at);
}

function nextHourStart(zone: string, start: number): number {
  const offset = offsetMs(zone, start);
  const next = start - floorMod(start + offset, HOUR_MS) + HOUR_MS;
  return offsetMs(zone, next - 1) === offset ? next : offsetChange(zone, start, next - 1);
}

/** The first instant in (lo, hi] whose offset differs from lo's (one change at most: changes are months apart). */
function offsetChange(zone: string, lo: number, hi: number): number {
  const before = offsetMs(zone, lo);
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (offsetMs(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

function floorMod(n: number, m: number): number {
  return ((n % m) + m) % m;
}

/**
 * The buckets of [from, to] (inclusive ms) in the zone, or undefined when there would be more
 * than maxBuckets of them (the caller answers 400).
 */
export function timeBuckets(
  interval: Interval,
  zone: string,
  from: number,
  to: number,
  maxBuckets: number,
): TimeBucket[] | undefined {
  if (interval === 'hour') return hourBuckets(zone, from, to, maxBuckets);
  const out: TimeBucket[] = [];
  for (let start = intervalStart(interval, zone, from); start <= to;) {
    const end = nextIntervalStart(interval, zone, start);
    if (out.length >= maxBuckets) return undefined;
    out.push({ time: start, start: Math.max(start, from), end: Math.min(end, to + 1) });
    start = end;
  }
  return out;
}

/** How far ahead hourBuckets looks: offset changes are weeks or months apart, never two in a week. */
const STEADY_PROBE_MS = 7 * DAY_MS;

/**
 * Hour buckets with about two offset look-ups per week instead of two per hour (each is an Intl
 * call of microseconds; 10,000 buckets must not hold the event loop): where the offset a week
 * ahead is the same, it is the same all week and the hours are plain arithmetic; only around a
 * change is every bucket end looked up.
 */
function hourBuckets(zone: string, from: number, to: number, maxBuckets: number): TimeBucket[] | undefined {
  const out: TimeBucket[] = [];
  let start = hourStart(zone, from);
  let offset = offsetMs(zone, start);
  // the offset is `offset` from start through steadyUntil
  let steadyUntil = start;
  while (start <= to) {
    if (out.length >= maxBuckets) return undefined;
    if (steadyUntil <= start)
      steadyUntil = offsetMs(zone, start + STEADY_PROBE_MS) === offset ? start + STEADY_PROBE_MS : start;
    let end = start - floorMod(start + offset, HOUR_MS) + HOUR_MS;
    if (end > steadyUntil) end = nextHourStart(zone, start);
    out.push({ time: start, start: Math.max(start, from), end: Math.min(end, to + 1) });
    start = end;
    if (start > steadyUntil) offset = offsetMs(zone, start);
  }
  return out;
}

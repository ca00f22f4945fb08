import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../storage/time-units';
import type { ReportDate } from './report-dates';
import type { Interval, TimeBucket } from './report-query';

/**
 * A report's zoned time, in one place: IANA time zone arithmetic with Intl only (no dependency):
 * the zone's offset at an instant, the instant of a wall-clock time (DST gaps resolve to the
 * instant the clocks jumped, repeated hours to their first occurrence), ISO 8601 with the zone's
 * offset, a bound's bare date read in the zone, and the row times of a series. The series walk
 * asks the zone's offset at every step, so the walk and the arithmetic live together.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Intl accepts any letter case ("europe/berlin"): names come from clients, so the cache is bounded (~600 zones exist). */
const MAX_FORMATTERS = 1024;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size < MAX_FORMATTERS) formatters.set(zone, f);
  }
  return f;
}

/** Wall-clock fields of an instant in a zone (month 1..12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * Wall-clock fields of instants already asked, by zone and instant: a series walk asks a few
 * hundred (each an Intl call of microseconds) and a dashboard asks the same ranges again and
 * again. Cleared when full: bounded whatever the instants asked.
 */
const wallTimes = new Map<string, Readonly<WallTime>>();
const MAX_WALL_TIMES = 50_000;

export function wallTime(zone: string, at: number): Readonly<WallTime> {
  const key = `${zone}|${at}`;
  let w = wallTimes.get(key);
  if (!w) {
    if (wallTimes.size >= MAX_WALL_TIMES) wallTimes.clear();
    wallTimes.set(key, (w = Object.freeze(wallTimeOf(zone, at))));
  }
  return w;
}

function wallTimeOf(zone: string, at: number): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(at)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** The zone's offset from UTC at an instant, in ms (east positive; whole seconds). */
export function offsetMs(zone: string, at: number): number {
  const w = wallTime(zone, at);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant a wall-clock time denotes in a zone (fields may overflow, as with Date.UTC). */
export function zonedInstant(zone: string, year: number, month: number, day: number, hour = 0, minute = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // offsets on either side of any transition near this wall time (transitions are months apart)
  const candidates = [
    ...new Set([offsetMs(zone, wall - DAY_MS), offsetMs(zone, wall + DAY_MS), offsetMs(zone, wall)]),
  ].map((o) => wall - o);
  const valid = candidates.filter((t) => t + offsetMs(zone, t) === wall);
  // a repeated hour: its first occurrence; a skipped one (DST gap): shifted forward by the gap, as
  // Temporal's "compatible" (a skipped local midnight becomes the instant the clocks jumped)
  return valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
}

/** ISO 8601 with the zone's offset at that instant, e.g. 2026-03-29T00:00:00+01:00. */
export function formatZoned(zone: string, at: number): string {
  const w = wallTime(zone, at);
  const off = offsetMs(zone, at) / MINUTE_MS;
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  const pad = (n: number, len = 2) => String(n).padStart(len, '0');
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An IANA zone name Intl knows (not a bare offset like "+05:30"). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

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
  const w = wallTime(zone, at);
  if (interval === 'month') return zonedInstant(zone, w.year, w.month, 1);
  if (interval === 'day') return zonedInstant(zone, w.year, w.month, w.day);
  const weekday = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7; // Monday 0
  return zonedInstant(zone, w.year, w.month, w.day - weekday);
}

/** The start of the next interval after the one starting at `start`. */
export function nextIntervalStart(interval: Interval, zone: string, start: number): number {
  if (interval === 'hour') return nextHourStart(zone, start);
  // midday of the bucket's first local day, so a DST shift cannot move us into the wrong day
  const w = wallTime(zone, start + 12 * HOUR_MS);
  if (interval === 'day') return zonedInstant(zone, w.year, w.month, w.day + 1);
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

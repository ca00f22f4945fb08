import { DAY_MS, HOUR_MS, MINUTE_MS } from './time-units';

/**
 * IANA time zone arithmetic with Intl only (no dependency): the wall-clock fields of an instant
 * in a zone, the zone's offset, the instant of a wall-clock time (DST gaps resolve to the instant
 * the clocks jumped, repeated hours to their first occurrence), ISO 8601 with the zone's offset,
 * and a zone's local days. Shared by the reports' zoned series and the rollups' zone days, so a
 * zone day and a report's day bucket are the same span by construction.
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
 * Numbers already worked out, by zone and instant: a series walk, a report's plan over zone days
 * and its rows ask the same few hundred local midnights and offsets again and again (each an Intl
 * call of microseconds), and a dashboard asks the same ranges report after report. Keyed by the
 * zone, then the number (no key string made per lookup). Cleared whole when full (50,000
 * numbers, or as many zones as formatters are kept): bounded whatever the zones and instants
 * asked. Every value is a pure function of its keys.
 */
class ZoneMemo<V> {
  private readonly byZone = new Map<string, Map<number, V>>();
  private size = 0;

  constructor(private readonly max: number) {}

  get(zone: string, at: number): V | undefined {
    return this.byZone.get(zone)?.get(at);
  }

  set(zone: string, at: number, value: V): V {
    // a client may spell a zone in any letter case: as many zones as formatters, at most
    if (this.size >= this.max || (this.byZone.size >= MAX_FORMATTERS && !this.byZone.has(zone))) {
      this.byZone.clear();
      this.size = 0;
    }
    let values = this.byZone.get(zone);
    if (!values) this.byZone.set(zone, (values = new Map()));
    values.set(at, value);
    this.size++;
    return value;
  }
}

const MAX_MEMO = 50_000;
const wallTimes = new ZoneMemo<Readonly<WallTime>>(MAX_MEMO);
/** zonedInstant's answers, by the wall-clock time as if it were UTC (Date.UTC of its fields). */
const instants = new ZoneMemo<number>(MAX_MEMO);
/** nextLocalDayStart's answers, by the day's start. */
const nextDayStarts = new ZoneMemo<number>(MAX_MEMO);

export function wallTime(zone: string, at: number): Readonly<WallTime> {
  return wallTimes.get(zone, at) ?? wallTimes.set(zone, at, Object.freeze(wallTimeOf(zone, at)));
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
  return instants.get(zone, wall) ?? instants.set(zone, wall, instantOf(zone, wall));
}

function instantOf(zone: string, wall: number): number {
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

/** The local midnight that starts the zone's day holding `at`. */
export function localDayStart(zone: string, at: number): number {
  const w = wallTime(zone, at);
  return zonedInstant(zone, w.year, w.month, w.day);
}

/** The next local midnight after a local day's start (23 or 25 hours later on a DST day). */
export function nextLocalDayStart(zone: string, start: number): number {
  const known = nextDayStarts.get(zone, start);
  if (known !== undefined) return known;
  // midday of the day, so a DST shift cannot move us into the wrong day
  const w = wallTime(zone, start + 12 * HOUR_MS);
  return nextDayStarts.set(zone, start, zonedInstant(zone, w.year, w.month, w.day + 1));
}

import { DAY_MS, HOUR_MS } from '../storage/time-units';
import { isTimeZone, localDayStart, nextLocalDayStart, offsetMs } from '../storage/zone-clock';

/**
 * Zone days: one rollup unit per local day of a configured time zone (ROLLUP_ZONES), from local
 * midnight to the next (23 or 25 hours on a DST day), made from the hours it holds. A day series
 * in a zone behind or ahead of UTC otherwise reads 6 to 9 UTC-aligned units per local day (hours
 * and 4-hour blocks at both ends), and merging that many visitor sets dominates the report. A
 * zone day is only ever whole UTC hours: a zone whose offset is not a whole number of hours is
 * refused by the configuration, and a day that would still not be (a historic offset) has no unit.
 */
export const ZONE_DAY_LEVEL = 10;
/**
 * The families a zone day keeps: the totals ('t', families.ts) alone, with the owner's visitor
 * dictionary its visitor sets index into (on the first totals page). The reports zone days are
 * for (a day series in the zone by name, filtered at most by name or device type) read nothing
 * else, and the other families would cost their share of a UTC day again per zone (at 1M 77 %
 * of a day's bytes: 34.1 B/event a zone with them, 7.8 without). A report needing another
 * family plans with the UTC units.
 */
export const ZONE_DAY_FAMILIES: readonly string[] = ['t'];
/** Each configured zone adds a unit per day to every write's marks and a build per day: a few at most. */
export const MAX_ZONES = 8;

/** The first and last instant whose offsets the configuration checks (every stored event lies between). */
const CHECK_FROM = Date.UTC(1970, 0, 1);
const CHECK_TO = Date.UTC(2100, 0, 1);
/** Offset changes are months apart: a week's step meets every offset a zone had. */
const CHECK_STEP = 7 * DAY_MS;

/** The start of the zone day holding `at`, or undefined when that day is not whole UTC hours. */
export function zoneDayStart(zone: string, at: number): number | undefined {
  const start = localDayStart(zone, at);
  return start % HOUR_MS === 0 && zoneDayEnd(zone, start) % HOUR_MS === 0 ? start : undefined;
}

/** The next local midnight after a zone day's start (the walk a report's day series takes too). */
export function zoneDayEnd(zone: string, start: number): number {
  return nextLocalDayStart(zone, start);
}

/** The `_id` of a zone day's mark; never the shape of a UTC unit's (`<level>:<start>`). */
export function zoneDayId(zone: string, start: number): string {
  return `z:${zone}:${start}`;
}

/** A zone day's id back to its zone and start, when the zone is known and the start a whole-hour local midnight. */
export function parseZoneDayId(id: string): { zone: string; start: number } | undefined {
  const m = /^z:([A-Za-z][A-Za-z0-9_+\-/]{0,63}):(\d{1,15})$/.exec(id);
  if (!m || !isTimeZone(m[1]!)) return undefined;
  const zone = m[1]!;
  const start = Number(m[2]);
  return zoneDayStart(zone, start) === start ? { zone, start } : undefined;
}

/** Names asked (every report in a zone asks its own; a formatter costs far more than a lookup), bounded. */
const canonicalNames = new Map<string, string | undefined>();
const MAX_CANONICAL_NAMES = 1024;

/** The zone's name as Intl spells it ("america/new_york" -> "America/New_York"), or undefined when unknown. */
export function canonicalZone(name: string): string | undefined {
  if (canonicalNames.has(name)) return canonicalNames.get(name);
  const zone = isTimeZone(name)
    ? new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
    : undefined;
  if (canonicalNames.size >= MAX_CANONICAL_NAMES) canonicalNames.clear();
  canonicalNames.set(name, zone);
  return zone;
}

/** Why a zone cannot have zone days (unknown, or an offset that is not whole hours at some time since 1970), or undefined. */
export function zoneDayProblem(name: string): string | undefined {
  const zone = canonicalZone(name);
  if (zone === undefined) return 'is not an IANA time zone';
  for (let at = CHECK_FROM; at <= CHECK_TO; at += CHECK_STEP) {
    const offset = offsetMs(zone, at);
    if (offset % HOUR_MS !== 0)
      return `has an offset that is not a whole number of hours (${offset / 60_000} minutes in ${new Date(at).getUTCFullYear()}): its days are not whole UTC hours`;
  }
  return undefined;
}

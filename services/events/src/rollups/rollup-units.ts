import { DAY_MS, HOUR_MS, utcHourStart } from '../storage/time-units';
import { parseZoneDayId, ZONE_DAY_LEVEL, zoneDayEnd, zoneDayId, zoneDayStart } from './zone-days';

/**
 * Rollup units: aligned UTC time spans whose counts are pre-aggregated. Level 0 is an hour, level
 * 2 a block of 4 hours, level 4 one UTC day (six 4-hour blocks), levels 6, 8 and 9 blocks of 4, 16
 * and 32 days, all aligned to the epoch (a block of 2^k hours or days starts on a multiple of its
 * size). Levels 1 and 3 (2 and 8 hours) are not kept: they held about 30 % of the cells' bytes for
 * a few reads saved (a day in a whole-hour zone is 6 to 9 units instead of 4 to 6). Nor are 5 and
 * 7 (2 and 8 days): 21 % of the bytes at 1M events of the report bench, for a 30-day report
 * reading up to 6 more units (bench:page-bytes, docs/benchmarks.md). Any range decomposes into
 * O(log) units: a 30-day report reads a handful whatever the traffic. Beside them, a zone day
 * (ZONE_DAY_LEVEL, zone-days.ts) per local day of each configured zone, made from its hours.
 */
/** The level of one UTC day: below it sub-day blocks, above it multi-day blocks. */
export const DAY_LEVEL = 4;
export const MAX_LEVEL = 9;
export const LEVELS: readonly number[] = [0, 2, 4, 6, 8, 9];
/** Levels of earlier releases no longer kept (their marks and cells are dropped at start). */
export const DROPPED_LEVELS: readonly number[] = [1, 3, 5, 7];
/** By level number (1, 3, 5 and 7 are not kept any more; 10 is a configured zone's day). */
export const LEVEL_NAMES: readonly string[] = [
  '1h',
  '2h',
  '4h',
  '8h',
  '1d',
  '2d',
  '4d',
  '8d',
  '16d',
  '32d',
  'zone-day',
];
/** The levels the builder builds: the UTC-aligned ones, then zone days (from hours built before them). */
export const BUILT_LEVELS: readonly number[] = [...LEVELS, ZONE_DAY_LEVEL];

/** One unit: its level and the first millisecond it covers; a zone day (ZONE_DAY_LEVEL) also its zone. */
export interface UnitRef {
  level: number;
  start: number;
  zone?: string;
}

export function unitSizeMs(level: number): number {
  return level < DAY_LEVEL ? HOUR_MS * 2 ** level : DAY_MS * 2 ** (level - DAY_LEVEL);
}

export function unitEnd(unit: UnitRef): number {
  return unit.zone !== undefined ? zoneDayEnd(unit.zone, unit.start) : unit.start + unitSizeMs(unit.level);
}

/** Stable id of a unit (the `_id` of its mark document). */
export function unitId(unit: UnitRef): string {
  return unit.zone !== undefined ? zoneDayId(unit.zone, unit.start) : `${unit.level}:${unit.start}`;
}

export function parseUnitId(id: string): UnitRef | undefined {
  const zoned = parseZoneDayId(id);
  if (zoned) return { level: ZONE_DAY_LEVEL, ...zoned };
  const m = /^(\d):(\d+)$/.exec(id);
  if (!m) return undefined;
  const unit = { level: Number(m[1]), start: Number(m[2]) };
  return LEVELS.includes(unit.level) && unit.start % unitSizeMs(unit.level) === 0 ? unit : undefined;
}

/** The unit of a level that contains an instant. */
export function unitAt(level: number, at: number): UnitRef {
  const size = unitSizeMs(level);
  return { level, start: Math.floor(at / size) * size };
}

/** Every unit (one per level) that contains an instant: what a write to that instant changes. */
export function unitsContaining(at: number): UnitRef[] {
  return LEVELS.map((level) => unitAt(level, at));
}

/** The units a unit is merged from: the units of the next smaller kept level that it is made of. */
export function childrenOf(unit: UnitRef): UnitRef[] {
  // a zone day is made of its hours: a whole number of them (zone-days.ts), 23 to 25
  if (unit.zone !== undefined) {
    const hours = (unitEnd(unit) - unit.start) / HOUR_MS;
    return Array.from({ length: hours }, (_, i) => ({ level: 0, start: unit.start + i * HOUR_MS }));
  }
  const below = LEVELS.indexOf(unit.level) - 1;
  if (below < 0) return [];
  const level = LEVELS[below]!;
  const size = unitSizeMs(level);
  return Array.from({ length: unitSizeMs(unit.level) / size }, (_, i) => ({ level, start: unit.start + i * size }));
}

/**
 * Distinct unit ids touched by writes at these instants, hours first (the order marks are bumped
 * in), zone days last: the day of each configured zone (ROLLUP_ZONES) that holds each hour.
 */
export function touchedUnits(instants: readonly Date[], zones: readonly string[] = []): UnitRef[] {
  // a batch covers few hours: every larger unit follows from the hours, so instants reduce to those first
  const hours = new Set<number>();
  for (const at of instants) hours.add(utcHourStart(at.getTime()));
  const seen = new Map<string, UnitRef>();
  for (const hour of hours) {
    for (const unit of unitsContaining(hour)) seen.set(unitId(unit), unit);
    for (const zone of zones) {
      const start = zoneDayStart(zone, hour);
      if (start !== undefined) seen.set(zoneDayId(zone, start), { level: ZONE_DAY_LEVEL, start, zone });
    }
  }
  return [...seen.values()].sort((a, b) => a.level - b.level || a.start - b.start);
}

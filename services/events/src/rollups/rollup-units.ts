/**
 * Rollup units: aligned UTC time spans whose counts are pre-aggregated. Level 0 is one hour,
 * level 1 one UTC day, levels 2..6 dyadic blocks of 2, 4, 8, 16 and 32 days aligned to the epoch
 * (a block of 2^k days starts on a day number divisible by 2^k). Any range decomposes into
 * O(log) blocks, so a 30-day report reads a handful of units whatever the traffic.
 */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const MAX_LEVEL = 6;
export const LEVELS: readonly number[] = [0, 1, 2, 3, 4, 5, 6];

/** One unit: its level and the first millisecond it covers. */
export interface UnitRef {
  level: number;
  start: number;
}

export function unitSizeMs(level: number): number {
  return level === 0 ? HOUR_MS : DAY_MS * 2 ** (level - 1);
}

export function unitEnd(unit: UnitRef): number {
  return unit.start + unitSizeMs(unit.level);
}

/** Stable id of a unit (the `_id` of its mark document). */
export function unitId(unit: UnitRef): string {
  return `${unit.level}:${unit.start}`;
}

export function parseUnitId(id: string): UnitRef | undefined {
  const m = /^(\d):(\d+)$/.exec(id);
  if (!m) return undefined;
  const unit = { level: Number(m[1]), start: Number(m[2]) };
  return unit.level <= MAX_LEVEL && unit.start % unitSizeMs(unit.level) === 0 ? unit : undefined;
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

/** The units a unit is merged from: a day from its 24 hours, a block from its two halves. */
export function childrenOf(unit: UnitRef): UnitRef[] {
  if (unit.level === 0) return [];
  if (unit.level === 1) return Array.from({ length: 24 }, (_, h) => ({ level: 0, start: unit.start + h * HOUR_MS }));
  const half = unitSizeMs(unit.level - 1);
  return [
    { level: unit.level - 1, start: unit.start },
    { level: unit.level - 1, start: unit.start + half },
  ];
}

/** Distinct unit ids touched by writes at these instants, hours first (the order marks are bumped in). */
export function touchedUnits(instants: readonly Date[]): UnitRef[] {
  const seen = new Map<string, UnitRef>();
  for (const at of instants) {
    for (const unit of unitsContaining(at.getTime())) seen.set(unitId(unit), unit);
  }
  return [...seen.values()].sort((a, b) => a.level - b.level || a.start - b.start);
}

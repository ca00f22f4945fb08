import { DAY_MS, HOUR_MS } from '../storage/time-units';
import {
  DAY_LEVEL,
  childrenOf,
  parseUnitId,
  touchedUnits,
  unitAt,
  unitEnd,
  unitId,
  unitsContaining,
} from './rollup-units';

const at = Date.parse('2026-10-15T13:45:00Z');

describe('rollup units', () => {
  test('when an instant is placed, then each level holds it in an aligned unit of its size', () => {
    const units = unitsContaining(at);
    expect(units.map((u) => u.level)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(units.slice(0, 5).map((u) => new Date(u.start).toISOString())).toEqual([
      '2026-10-15T13:00:00.000Z',
      '2026-10-15T12:00:00.000Z',
      '2026-10-15T12:00:00.000Z',
      '2026-10-15T08:00:00.000Z',
      '2026-10-15T00:00:00.000Z',
    ]);
    for (const u of units) {
      expect(u.start).toBeLessThanOrEqual(at);
      expect(unitEnd(u)).toBeGreaterThan(at);
      if (u.level < DAY_LEVEL) expect((u.start / HOUR_MS) % 2 ** u.level).toBe(0);
      else expect((u.start / DAY_MS) % 2 ** (u.level - DAY_LEVEL)).toBe(0);
    }
  });

  test('when a day is split, then its children are its three 8-hour blocks; any other block splits into its two halves', () => {
    const day = unitAt(DAY_LEVEL, at);
    const thirds = childrenOf(day);
    expect(thirds.map((u) => u.level)).toEqual([3, 3, 3]);
    expect(thirds[0]!.start).toBe(day.start);
    expect(unitEnd(thirds[2]!)).toBe(unitEnd(day));
    for (const level of [1, 2, 3, 5, 6, 7, 8, 9]) {
      const block = unitAt(level, at);
      const [a, b] = childrenOf(block);
      expect(a).toEqual({ level: level - 1, start: block.start });
      expect(unitEnd(b!)).toBe(unitEnd(block));
    }
    expect(childrenOf(unitAt(0, at))).toEqual([]);
  });

  test('when unit ids are read back, then only well-formed aligned ids are units', () => {
    const u = unitAt(3, at);
    expect(parseUnitId(unitId(u))).toEqual(u);
    expect(parseUnitId('0:1')).toBeUndefined();
    expect(parseUnitId('10:0')).toBeUndefined();
    expect(parseUnitId('x')).toBeUndefined();
  });

  test('when a batch spans two hours of one day, then each touched unit is listed once, hours first', () => {
    const units = touchedUnits([new Date(at), new Date(at + 60_000), new Date(at + HOUR_MS)]);
    expect(units.filter((u) => u.level === 0)).toHaveLength(2);
    expect(units).toHaveLength(12); // 2 hours, 2 two-hour blocks, then one unit per larger level
    expect(units[0]!.level).toBe(0);
  });
});

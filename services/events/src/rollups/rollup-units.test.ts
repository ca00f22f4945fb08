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
    expect(units.map((u) => u.level)).toEqual([0, 2, 4, 5, 6, 7, 8, 9]);
    expect(units.slice(0, 3).map((u) => new Date(u.start).toISOString())).toEqual([
      '2026-10-15T13:00:00.000Z',
      '2026-10-15T12:00:00.000Z',
      '2026-10-15T00:00:00.000Z',
    ]);
    for (const u of units) {
      expect(u.start).toBeLessThanOrEqual(at);
      expect(unitEnd(u)).toBeGreaterThan(at);
      if (u.level < DAY_LEVEL) expect((u.start / HOUR_MS) % 2 ** u.level).toBe(0);
      else expect((u.start / DAY_MS) % 2 ** (u.level - DAY_LEVEL)).toBe(0);
    }
  });

  test('when a unit is split, then a day has six 4-hour blocks, a 4-hour block four hours, any larger block its two halves', () => {
    const day = unitAt(DAY_LEVEL, at);
    const sixths = childrenOf(day);
    expect(sixths.map((u) => u.level)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(sixths[0]!.start).toBe(day.start);
    expect(unitEnd(sixths[5]!)).toBe(unitEnd(day));
    expect(childrenOf(unitAt(2, at)).map((u) => [u.level, new Date(u.start).toISOString().slice(11, 13)])).toEqual([
      [0, '12'],
      [0, '13'],
      [0, '14'],
      [0, '15'],
    ]);
    for (const level of [5, 6, 7, 8, 9]) {
      const block = unitAt(level, at);
      const [a, b] = childrenOf(block);
      expect(a).toEqual({ level: level - 1, start: block.start });
      expect(unitEnd(b!)).toBe(unitEnd(block));
    }
    expect(childrenOf(unitAt(0, at))).toEqual([]);
  });

  test('when unit ids are read back, then only well-formed aligned ids are units', () => {
    const u = unitAt(2, at);
    expect(parseUnitId(unitId(u))).toEqual(u);
    expect(parseUnitId('0:1')).toBeUndefined();
    // 2- and 8-hour blocks are not kept any more
    expect(parseUnitId(unitId(unitAt(3, at)))).toBeUndefined();
    expect(parseUnitId('10:0')).toBeUndefined();
    expect(parseUnitId('x')).toBeUndefined();
  });

  test('when a batch spans two hours of one day, then each touched unit is listed once, hours first', () => {
    const units = touchedUnits([new Date(at), new Date(at + 60_000), new Date(at + HOUR_MS)]);
    expect(units.filter((u) => u.level === 0)).toHaveLength(2);
    expect(units).toHaveLength(9); // 2 hours, then one unit per larger level
    expect(units[0]!.level).toBe(0);
  });
});

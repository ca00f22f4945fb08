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
    expect(units.map((u) => u.level)).toEqual([0, 2, 4, 6, 8, 9]);
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

  test('when a unit is split, then a day has six 4-hour blocks, a 4-hour block four hours, 4 and 16 days their four quarters, 32 days its halves', () => {
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
    for (const [level, below, parts] of [
      [6, 4, 4],
      [8, 6, 4],
      [9, 8, 2],
    ] as const) {
      const block = unitAt(level, at);
      const children = childrenOf(block);
      expect(children.map((u) => u.level)).toEqual(Array(parts).fill(below));
      expect(children[0]!.start).toBe(block.start);
      expect(unitEnd(children[parts - 1]!)).toBe(unitEnd(block));
    }
    expect(childrenOf(unitAt(0, at))).toEqual([]);
  });

  test('when unit ids are read back, then only well-formed aligned ids are units', () => {
    const u = unitAt(2, at);
    expect(parseUnitId(unitId(u))).toEqual(u);
    expect(parseUnitId('0:1')).toBeUndefined();
    // 2- and 8-hour blocks, 2- and 8-day blocks are not kept any more
    for (const level of [1, 3, 5, 7]) expect(parseUnitId(unitId(unitAt(level, at)))).toBeUndefined();
    expect(parseUnitId('10:0')).toBeUndefined();
    expect(parseUnitId('x')).toBeUndefined();
  });

  test('when a batch spans two hours of one day, then each touched unit is listed once, hours first', () => {
    const units = touchedUnits([new Date(at), new Date(at + 60_000), new Date(at + HOUR_MS)]);
    expect(units.filter((u) => u.level === 0)).toHaveLength(2);
    expect(units).toHaveLength(7); // 2 hours, then one unit per larger level
    expect(units[0]!.level).toBe(0);
  });
});

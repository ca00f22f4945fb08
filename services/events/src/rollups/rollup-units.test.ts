import { DAY_MS, HOUR_MS, childrenOf, parseUnitId, touchedUnits, unitAt, unitEnd, unitId, unitsContaining } from './rollup-units';

const at = Date.parse('2026-10-15T13:45:00Z');

describe('rollup units', () => {
  test('when an instant is placed, then each level holds it in an aligned unit of its size', () => {
    const units = unitsContaining(at);
    expect(units.map((u) => u.level)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(new Date(units[0]!.start).toISOString()).toBe('2026-10-15T13:00:00.000Z');
    expect(new Date(units[1]!.start).toISOString()).toBe('2026-10-15T00:00:00.000Z');
    for (const u of units) {
      expect(u.start).toBeLessThanOrEqual(at);
      expect(unitEnd(u)).toBeGreaterThan(at);
      expect(u.start % (u.level === 0 ? HOUR_MS : DAY_MS)).toBe(0);
      if (u.level >= 2) expect((u.start / DAY_MS) % 2 ** (u.level - 1)).toBe(0);
    }
  });

  test('when a day is split, then its children are its 24 hours; a block splits into its two halves', () => {
    const day = unitAt(1, at);
    const hours = childrenOf(day);
    expect(hours).toHaveLength(24);
    expect(hours[23]!.start + HOUR_MS).toBe(unitEnd(day));
    const block = unitAt(4, at);
    const [a, b] = childrenOf(block);
    expect(a).toEqual({ level: 3, start: block.start });
    expect(unitEnd(b!)).toBe(unitEnd(block));
    expect(childrenOf(unitAt(0, at))).toEqual([]);
  });

  test('when unit ids are read back, then only well-formed aligned ids are units', () => {
    const u = unitAt(3, at);
    expect(parseUnitId(unitId(u))).toEqual(u);
    expect(parseUnitId('0:1')).toBeUndefined();
    expect(parseUnitId('7:0')).toBeUndefined();
    expect(parseUnitId('x')).toBeUndefined();
  });

  test('when a batch spans two hours of one day, then each touched unit is listed once, hours first', () => {
    const units = touchedUnits([new Date(at), new Date(at + 60_000), new Date(at + HOUR_MS)]);
    expect(units.filter((u) => u.level === 0)).toHaveLength(2);
    expect(units).toHaveLength(8);
    expect(units[0]!.level).toBe(0);
  });
});

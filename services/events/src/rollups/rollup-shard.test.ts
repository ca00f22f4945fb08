import { inShard, isFirstShard } from './rollup-shard';
import { LEVELS, childrenOf, unitAt } from './rollup-units';

const DAY = 86_400_000;
const FROM = Date.parse('2026-09-01T00:00:00Z');

describe('rollup shards', () => {
  test('when units of every level over 70 days are split in 3, then each belongs to exactly one shard and every shard has some', () => {
    const units = LEVELS.flatMap((level) =>
      Array.from({ length: 70 * 24 }, (_, h) => unitAt(level, FROM + h * 3_600_000)).filter(
        (u, i, all) => i === 0 || u.start !== all[i - 1]!.start,
      ),
    );
    const counts = [0, 0, 0];
    for (const unit of units) {
      const owners = [0, 1, 2].filter((index) => inShard(unit, { index, count: 3 }));
      expect(owners).toHaveLength(1);
      const shard = owners[0]!;
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(counts.every((n) => n > 0)).toBe(true);
  });

  test('when a day is split among builders, then its hours and 4-hour units go with the day (they are made from one raw read)', () => {
    for (let d = 0; d < 10; d++) {
      const day = unitAt(4, FROM + d * DAY);
      const shard = [0, 1].find((index) => inShard(day, { index, count: 2 }))!;
      const below = [...childrenOf(day), ...childrenOf(day).flatMap((u) => childrenOf(u))];
      expect(below.length).toBeGreaterThan(0);
      for (const unit of below) expect(inShard(unit, { index: shard, count: 2 })).toBe(true);
    }
  });

  test("when there is no shard or one, then every unit is this builder's and it is the first", () => {
    expect(inShard(unitAt(9, FROM), undefined)).toBe(true);
    expect(inShard(unitAt(0, FROM), { index: 0, count: 1 })).toBe(true);
    expect(isFirstShard(undefined)).toBe(true);
    expect(isFirstShard({ index: 1, count: 2 })).toBe(false);
  });
});

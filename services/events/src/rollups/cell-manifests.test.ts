import { BSON } from 'mongodb';
import { manifestPartId, splitIds } from './cell-manifests';

describe('splitIds', () => {
  const ids = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify(['c', 'G', String(i % 7), `${'\u0001'.repeat(i % 50)}p${i}`, 0]),
  );

  test('when a generation has more ids than one document may hold, then parts hold them all, each within the byte limit', () => {
    const maxBytes = 5_000;
    const parts = splitIds('G', ids, { maxIds: 100_000, maxBytes });
    expect(parts.length).toBeGreaterThan(5);
    parts.forEach((list, i) =>
      expect(BSON.calculateObjectSize({ _id: manifestPartId('G', i + 1), g: 'G', ids: list })).toBeLessThanOrEqual(
        maxBytes,
      ),
    );
    expect(parts.flat()).toEqual(ids);
  });

  test('when the id limit is reached first, then a part closes at it; no ids make no part', () => {
    expect(splitIds('G', ids, { maxIds: 64, maxBytes: 1e9 }).map((p) => p.length)).toEqual([
      64, 64, 64, 64, 64, 64, 64, 52,
    ]);
    expect(splitIds('G', [])).toEqual([]);
  });

  test('when parts are named, then the head is the generation and part i is <g>#i', () => {
    expect([manifestPartId('G', 0), manifestPartId('G', 3)]).toEqual(['G', 'G#3']);
  });
});

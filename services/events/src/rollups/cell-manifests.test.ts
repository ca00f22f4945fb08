import { BSON } from 'mongodb';
import { manifestPartId, splitManifest } from './cell-manifests';

describe('splitManifest', () => {
  const ids = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify(['f', 'G', String(i % 7), `${'\u0001'.repeat(i % 50)}name${i}`, 0]),
  );

  test('when a generation has more ids than one document may hold, then parts hold them all, each within the byte limit, the head counting them', () => {
    const maxBytes = 5_000;
    const parts = splitManifest('G', ids, { maxIds: 100_000, maxBytes });
    expect(parts.length).toBeGreaterThan(5);
    expect(parts[0]).toMatchObject({ _id: 'G', g: 'G', parts: parts.length });
    parts.slice(1).forEach((p, i) => expect(p).toEqual({ _id: manifestPartId('G', i + 1), g: 'G', ids: p.ids }));
    for (const p of parts) expect(BSON.calculateObjectSize(p)).toBeLessThanOrEqual(maxBytes);
    expect(parts.flatMap((p) => p.ids)).toEqual(ids);
  });

  test('when the id limit is reached first, then a part closes at it; an empty generation has one head', () => {
    expect(splitManifest('G', ids, { maxIds: 64, maxBytes: 1e9 }).map((p) => p.ids.length)).toEqual([
      64, 64, 64, 64, 64, 64, 64, 52,
    ]);
    expect(splitManifest('G', [])).toEqual([{ _id: 'G', g: 'G', ids: [], parts: 1 }]);
  });
});

import { fineCell, latestOf } from '../../test/support/fine-cells';
import { BSON } from 'mongodb';
import { cellId, coarsePageIds, fineListIds, fineListOf, finePageIds, packCells } from './cell-document';

const L = latestOf;
const cell = fineCell;

describe('packCells', () => {
  test('when an owner has cells of two names, then each name gets fine pages, and a directory lists them with the coarse totals', () => {
    const docs = packCells(
      '1',
      'G',
      [cell('click', 'a', [1, 0, 0]), cell('click', 'b', [0, 2, 0]), cell('view', 'a', [0, 0, 3])],
      { maxEntries: 1, maxBytes: 1e9 },
    );
    const dir = docs.find((d) => d._id === cellId('d', 'G', '1'))!;
    expect(dir.fp).toEqual([
      ['click', 2],
      ['view', 1],
    ]);
    expect(finePageIds(dir).sort()).toEqual(
      docs
        .filter((d) => d.k === 'f')
        .map((d) => d._id)
        .sort(),
    );
    expect(finePageIds(dir, new Set(['view']))).toEqual([cellId('f', 'G', '1', 'view', 0)]);
    expect(coarsePageIds(dir)).toEqual([cellId('c', 'G', '1', '', 1)]);
    expect(docs[docs.length - 1]).toBe(dir);
  });

  test('when entries carry large metadata, then a page closes at the byte bound', () => {
    const big = L(1, 'x', { k: 'v'.repeat(500) });
    const cells = Array.from({ length: 10 }, (_, i) => cell('n', `u${i}`, [1, 0, 0], [big, null, null]));
    const fine = packCells('1', 'G', cells, { maxEntries: 1000, maxBytes: 2000 }).filter((d) => d.k === 'f');
    expect(fine.length).toBeGreaterThan(2);
    expect(fine.reduce((n, d) => n + (JSON.parse(d.e) as unknown[]).length, 0)).toBe(10);
  });

  test('when metadata is made of control characters (six bytes each in JSON), then every page stays within the limit in real BSON bytes, and pages are filled', () => {
    const maxBytes = 200_000;
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, '\u0001'.repeat(512)]));
    // one name, distinct content_ids: what a burst of pixel beacons makes of one hour
    const cells = Array.from({ length: 60 }, (_, i) => ({
      ...cell('pixel', `u${i}`, [1, 0, 0], [L(i, `id${i}`, metadata), null, null]),
      contentId: `c${String(i).padStart(3, '0')}`,
    }));
    const docs = packCells('1', 'G', cells, { maxEntries: 1000, maxBytes });
    for (const doc of docs) expect(BSON.calculateObjectSize(doc)).toBeLessThanOrEqual(maxBytes);
    const fine = docs.filter((d) => d.k === 'f');
    const total = fine.reduce((n, d) => n + BSON.calculateObjectSize(d), 0);
    expect(fine.length).toBeLessThanOrEqual(Math.ceil(total / (maxBytes - 70_000)));
    expect(fine.flatMap((d) => (JSON.parse(d.e) as Array<[string]>).map((e) => e[0]))).toEqual(
      cells.map((c) => c.contentId),
    );
    expect(fine.flatMap((d) => JSON.parse(d.l) as unknown[])).toEqual(cells.map((c) => c.latest));
  });

  test('when an owner has more names than a directory can list, then list documents hold its fine pages, every document within the limit', () => {
    const maxBytes = 20_000;
    const names = Array.from({ length: 120 }, (_, i) => `${'\u2603'.repeat(100)}${String(i).padStart(3, '0')}`);
    const docs = packCells(
      '1',
      'G',
      names.map((n) => cell(n, 'a', [1, 0, 0])),
      { maxEntries: 1000, maxBytes },
    );
    for (const doc of docs) expect(BSON.calculateObjectSize(doc)).toBeLessThanOrEqual(maxBytes);
    expect(
      docs
        .filter((d) => d.k === 'c')
        .sort((a, b) => a.p - b.p)
        .flatMap((d) => (JSON.parse(d.e) as Array<[string]>).map((e) => e[0])),
    ).toEqual(names);
    const dir = docs[docs.length - 1]!;
    const lists = docs.filter((d) => fineListIds(dir).includes(d._id));
    expect(lists.length).toBeGreaterThan(1);
    const listed = lists.flatMap((l) => finePageIds(fineListOf(l)));
    expect(listed.sort()).toEqual(
      docs
        .filter((d) => d.k === 'f')
        .map((d) => d._id)
        .sort(),
    );
    expect(lists.flatMap((l) => finePageIds(fineListOf(l), new Set([names[7]!])))).toEqual([
      cellId('f', 'G', '1', names[7], 0),
    ]);
  });

  test('when two ids would collide as plain text (a name holding the separator), then JSON ids keep them apart', () => {
    expect(cellId('f', 'G', '1', 'a","b', 0)).not.toBe(cellId('f', 'G', '1"', 'b', 0));
  });
});

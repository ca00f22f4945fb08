import { fineCell, latestOf } from '../../../test/support/fine-cells';
import type { CellDocument } from '../../rollups/cell-document';
import { packCells } from '../../rollups/cell-document';
import { CellTable, type FineCell } from '../../rollups/cell-table';
import type { ReportQuery } from '../request/report-query';
import { cellQueryOf, groupsOfCells } from './cell-reader';

const L = latestOf;
const cell = fineCell;
const base: ReportQuery = {
  ownerId: '1',
  groupBy: [],
  metadataKeys: [],
  metrics: ['count'],
  measureMetrics: [],
  range: {},
};

describe('groupsOfCells', () => {
  const docsOf = (cells: FineCell[]): CellDocument[] => {
    const t = new CellTable();
    cells.forEach((c) => t.add(c));
    return packCells('1', 'G', t.byOwner().get('1')!);
  };
  const all = (docs: CellDocument[], q: Parameters<typeof cellQueryOf>[0]) =>
    docs.flatMap((d) => [...groupsOfCells(d, cellQueryOf(q))]);

  test('when a device filter is given, then only those devices count and the latest is the newest of those devices', () => {
    const docs = docsOf([
      cell(
        'click',
        'a',
        [1, 2, 3],
        [L(10, 'a', { k: 'desktop' }), L(30, 'b', { k: 'tablet' }), L(20, 'c', { k: 'mobile' })],
      ),
    ]);
    const groups = all(docs, { ...base, deviceTypes: ['desktop', 'mobile'], metadataKeys: ['k'] });
    expect(groups).toEqual([
      { name: 'click', value: 4, latest: { created: new Date(20), id: 'c', metadata: ['mobile'] } },
    ]);
  });

  test('when only devices without events are selected, then the cell is not a group (as raw events would not form one)', () => {
    expect(all(docsOf([cell('click', 'a', [1, 0, 0])]), { ...base, deviceTypes: ['tablet'] })).toEqual([]);
  });

  test('when grouped and filtered by url, then fine entries answer with the group fields; the same cell merged twice adds up', () => {
    const docs = docsOf([cell('click', 'a', [1, 0, 0]), cell('click', 'b', [1, 0, 0]), cell('click', 'a', [0, 1, 0])]);
    expect(all(docs, { ...base, groupBy: ['url'], urls: ['a'] })).toEqual([{ name: 'click', url: 'a', value: 2 }]);
  });

  test('when a requested metadata key is missing or not own, then it reads as ""', () => {
    const docs = docsOf([cell('click', 'a', [1, 0, 0], [L(1, 'x', { k: 'v' }), null, null])]);
    expect(all(docs, { ...base, metadataKeys: ['missing', 'constructor', 'k'] })[0]!.latest!.metadata).toEqual([
      '',
      '',
      'v',
    ]);
  });
});

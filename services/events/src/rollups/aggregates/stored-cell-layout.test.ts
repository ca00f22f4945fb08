import { emptyQuantileStates } from './quantiles-aggregate';
import { emptySums } from './sums-aggregate';
import { packCells, type CellDocument } from '../cell-document';
import { CellTable, type FineCell } from '../cell-table';
import { buildHourPipeline, readHourRow } from '../hour-pipeline';
import { decodeCellValue } from './cell-aggregates';
import { emptySketch, sketchOfHashes } from '../../sketches/distinct-sketch';

/**
 * The stored cell layout as cells written before the aggregates had their own files hold it:
 * fine entries `[content_id, url, counts]`, coarse `[name, counts]`, the latest events in `l`.
 * Cells already stored must stay readable, and new ones must be written alike.
 */
const CELL: FineCell = {
  owner: '1',
  name: 'click',
  contentId: 'c1',
  url: 'https://x/a',
  counts: [2, 0, 1],
  latest: [[5, 'id-5', { k: 'v' }], null, [7, 'id-7', {}]],
  uniques: [sketchOfHashes([1, 2]), emptySketch(), sketchOfHashes([3])],
  sums: [emptySums(), emptySums(), emptySums()],
  quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
  uniquesAllDevices: [sketchOfHashes([1, 2, 3]), emptySketch(), emptySketch()],
};
const FINE_E = '[["c1","https://x/a",[2,0,1]]]';
const COARSE_E = '[["click",[2,0,1]]]';
const L = '[[[5,"id-5",{"k":"v"}],null,[7,"id-7",{}]]]';

describe('the stored cell', () => {
  const docs = packCells('1', 'G', [CELL]);
  const fine = docs.find((d) => d.k === 'f')!;
  const dir = docs.find((d) => d.k === 'c')!;

  test('when a cell is packed, then its fine and coarse entries and latest events are the same JSON text as the stored layout', () => {
    expect([fine.e, fine.l]).toEqual([FINE_E, L]);
    expect([dir.e, dir.l]).toEqual([COARSE_E, L]);
  });

  test('when a stored entry is decoded and packed again, then the text is unchanged', () => {
    const stored: Pick<CellDocument, 'e' | 'l'> = { e: FINE_E, l: L };
    const [entry] = JSON.parse(stored.e) as Array<[string, string, ...unknown[]]>;
    const side = {
      l: (JSON.parse(stored.l) as unknown[])[0],
      u: (JSON.parse(fine.u!) as unknown[])[0],
      v: (JSON.parse(fine.v!) as unknown[])[0],
    };
    const cell = decodeCellValue(entry!, 2, side, { owner: '1', name: 'click', contentId: entry![0], url: entry![1] });
    expect(cell).toEqual(CELL);
    const again = packCells('1', 'G', [cell]).find((d) => d.k === 'f')!;
    expect([again.e, again.l]).toEqual([FINE_E, L]);
  });

  test('when an entry was stored without a later aggregate (shorter than today), then that aggregate decodes as empty', () => {
    const none = [emptySketch(), emptySketch(), emptySketch()];
    expect(decodeCellValue(['c1', 'u'], 2, {}, {})).toEqual({
      counts: [0, 0, 0],
      latest: [null, null, null],
      uniques: none,
      sums: [emptySums(), emptySums(), emptySums()],
      quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
      uniquesAllDevices: none,
    });
  });
});

describe('the hour pipeline', () => {
  test("when built, then its $group holds every aggregate's accumulator under the stored field names", () => {
    const [, group] = buildHourPipeline(new Date(0), new Date(3_600_000));
    expect(group).toEqual({
      $group: {
        _id: {
          o: '$owner_id',
          h: { $hour: '$created' },
          n: '$name',
          c: '$content_id',
          u: '$url',
          d: '$device_type',
          v: '$visitor',
          me: '$measures.engaged_ms',
          ms: '$measures.scroll_depth',
          mv: '$measures.value',
        },
        v: { $sum: 1 },
        l: { $max: { c: '$created', i: '$_id', m: { $ifNull: ['$metadata', {}] } } },
        mc: { $sum: 1 },
      },
    });
  });

  test('when a row is read, then its states sit under its device and the cell table merges it like a cell', () => {
    const row = {
      _id: { o: '1', h: 3, n: 'click', c: 'c1', u: 'https://x/a', d: 'mobile', v: 9 },
      v: 4,
      l: { c: new Date(9), i: 'id-9', m: { k: 'v', n: 1 } },
    };
    const read = readHourRow(row);
    expect(read).toEqual({
      owner: '1',
      hour: 3,
      name: 'click',
      contentId: 'c1',
      url: 'https://x/a',
      value: {
        counts: [0, 0, 4],
        latest: [null, null, [9, 'id-9', { k: 'v' }]],
        uniques: [emptySketch(), emptySketch(), sketchOfHashes([9])],
        sums: [emptySums(), emptySums(), emptySums()],
        quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
        uniquesAllDevices: [emptySketch(), emptySketch(), sketchOfHashes([9])],
      },
    });
    const table = new CellTable();
    table.addDeviceRow(read);
    table.add(CELL);
    expect(table.byOwner().get('1')).toEqual([
      {
        ...CELL,
        counts: [2, 0, 5],
        latest: [[5, 'id-5', { k: 'v' }], null, [9, 'id-9', { k: 'v' }]],
        uniques: [sketchOfHashes([1, 2]), emptySketch(), sketchOfHashes([3, 9])],
        uniquesAllDevices: [sketchOfHashes([1, 2, 3]), emptySketch(), sketchOfHashes([9])],
      },
    ]);
  });
});

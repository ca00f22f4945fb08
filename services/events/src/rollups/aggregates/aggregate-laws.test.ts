import type { Aggregate } from './aggregate';
import { CELL_AGGREGATES, copyCellValue, mergeCellValue, type CellValue } from './cell-aggregates';
import type { Latest } from './latest-aggregate';

/** Sample states of each registered aggregate, the empty state among them. */
const SAMPLES: { [K in keyof CellValue]: Array<CellValue[K][number]> } = {
  counts: [0, 1, 7, 1_000_000],
  latest: [null, [1, '0190-a', { k: 'x' }], [1, '0190-b', {}], [5, '0190-a', { k: 'y' }]] satisfies Array<Latest | null>,
};

describe.each(Object.keys(CELL_AGGREGATES) as Array<keyof CellValue>)('the %s aggregate', (field) => {
  const aggregate = CELL_AGGREGATES[field] as Aggregate<unknown>;
  const samples = SAMPLES[field] as unknown[];

  test('when merged with the empty state, then a state is unchanged (either side)', () => {
    for (const s of samples) {
      expect(aggregate.merge(aggregate.empty(), s)).toEqual(s);
      expect(aggregate.merge(s, aggregate.empty())).toEqual(s);
    }
  });

  test('when two states are merged in either order, then the result is the same', () => {
    for (const a of samples) for (const b of samples) expect(aggregate.merge(a, b)).toEqual(aggregate.merge(b, a));
  });

  test('when three states are merged in either grouping, then the result is the same', () => {
    for (const a of samples) for (const b of samples) for (const c of samples) {
      expect(aggregate.merge(aggregate.merge(a, b), c)).toEqual(aggregate.merge(a, aggregate.merge(b, c)));
    }
  });
});

describe('mergeCellValue', () => {
  test('when two cells merge, then every aggregate merges device by device and the copy of the source is untouched', () => {
    const a: CellValue = { counts: [1, 0, 2], latest: [[1, 'a', {}], null, null] };
    const b: CellValue = { counts: [0, 3, 1], latest: [[2, 'b', {}], [1, 'c', {}], null] };
    const into = copyCellValue(a);
    mergeCellValue(into, b);
    expect(into).toEqual({ counts: [1, 3, 3], latest: [[2, 'b', {}], [1, 'c', {}], null] });
    expect(a).toEqual({ counts: [1, 0, 2], latest: [[1, 'a', {}], null, null] });
  });
});

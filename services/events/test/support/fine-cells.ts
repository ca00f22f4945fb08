import type { Latest } from '../../src/rollups/aggregates/latest-aggregate';
import { CELL_AGGREGATES, type CellValue } from '../../src/rollups/aggregates/cell-aggregates';
import type { FineCell } from '../../src/rollups/cell-table';

/** Every registered aggregate empty on every device: a new aggregate needs no change in the tests' cells. */
export function emptyCellValue(): CellValue {
  const value: Record<string, unknown[]> = {};
  for (const [field, aggregate] of Object.entries(CELL_AGGREGATES))
    value[field] = [aggregate.empty(), aggregate.empty(), aggregate.empty()];
  return value as CellValue;
}

export const latestOf = (t: number, id: string, m: Record<string, string> = {}): Latest => [t, id, m];

/** A fine cell of owner 1 with these counts (and latest events), every other aggregate empty. */
export function fineCell(
  name: string,
  url: string,
  counts: [number, number, number],
  latest: FineCell['latest'] = [null, null, null],
): FineCell {
  return { ...emptyCellValue(), owner: '1', name, contentId: `c-${url}`, url, counts, latest };
}

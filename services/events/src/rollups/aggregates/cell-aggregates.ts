import type { Aggregate, PerDevice } from './aggregate';
import { countAggregate } from './count-aggregate';
import { latestAggregate, type Latest } from './latest-aggregate';

/** What a cell keeps per device: one field per registered aggregate. */
export interface CellValue {
  counts: PerDevice<number>;
  latest: PerDevice<Latest | null>;
}

/**
 * The registry: every aggregate a cell keeps, by its field. Building cells (CellTable, the
 * coarse totals of packCells) merges through it; a new aggregate is a new file, a field here and
 * in CellValue, and its place in the stored cell (cell-document.ts).
 */
export const CELL_AGGREGATES: { readonly [K in keyof CellValue]: Aggregate<CellValue[K][number]> } = {
  counts: countAggregate,
  latest: latestAggregate,
};

const FIELDS = Object.keys(CELL_AGGREGATES) as Array<keyof CellValue>;

/** Merges `from` into `into`, device by device, for every registered aggregate. */
export function mergeCellValue(into: CellValue, from: CellValue): void {
  for (const field of FIELDS) {
    const aggregate = CELL_AGGREGATES[field] as Aggregate<unknown>;
    const target = into[field] as unknown[];
    const source = from[field] as readonly unknown[];
    for (let d = 0; d < 3; d++) target[d] = aggregate.merge(target[d], source[d]);
  }
}

/** A copy whose per-device arrays can be merged into without touching `value`. */
export function copyCellValue(value: CellValue): CellValue {
  const copy: Partial<Record<keyof CellValue, unknown[]>> = {};
  for (const field of FIELDS) copy[field] = [...value[field]];
  return copy as CellValue;
}

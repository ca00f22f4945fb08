import type { Document } from 'mongodb';
import { deviceIndex } from '../metrics/aggregate';
import { hourRowParts, statesOfRow, type RowStates } from '../metrics/registry';
import { pipelineValue, storedOf, type Dimension } from '../storage/dimensions';
import type { FamilyTable } from './cell-table';
import { FAMILIES, FAMILY_DIMENSIONS } from './families';

/**
 * One pass over a day bucket for the hours being built: every non-bot event of [from, to) grouped
 * by owner, hour, name, device, every dimension a family keeps (families.ts) and what an
 * aggregate adds to the key (the visitor, the measures' values), with the accumulators of every
 * aggregate (metrics/registry.ts), sorted by owner so the builder holds one owner's cells at a
 * time. `$hour` instead of `$dateTrunc` (not in the portable subset); buckets are UTC days, so
 * the hour of the day is enough.
 */
export function buildHourPipeline(from: Date, to: Date): Document[] {
  const { key, group } = hourRowParts();
  const id: Document = { o: '$owner_id', h: { $hour: '$created' }, n: '$name', d: '$device_type' };
  for (const dimension of FAMILY_DIMENSIONS) id[dimension] = pipelineValue(dimension);
  Object.assign(id, key);
  return [
    { $match: { created: { $gte: from, $lt: to }, bot: { $ne: true } } },
    { $group: { _id: id, ...group } },
    { $sort: { '_id.o': 1 } },
  ];
}

export interface HourRow {
  owner: string;
  hour: number;
  name: string;
  /** The row's value of every family dimension, as stored ("" when the events had none). */
  dims: Record<Dimension, string>;
  /** The row's device (an index into DEVICE_ORDER). */
  device: number;
  /** Each aggregate's state of the row (on its device). */
  states: RowStates;
}

export function readHourRow(row: Document): HourRow {
  const id = row._id as Record<string, unknown>;
  const dims = {} as Record<Dimension, string>;
  for (const dimension of FAMILY_DIMENSIONS) dims[dimension] = storedOf(id[dimension]);
  const device = deviceIndex(id.d);
  return {
    owner: String(id.o),
    hour: Number(id.h),
    name: String(id.n),
    dims,
    device,
    states: statesOfRow(row),
  };
}

/** One hour-pipeline row into an owner's family tables of its hour (each family keyed by its dimensions). */
export function addHourRow(tables: ReadonlyMap<string, FamilyTable>, row: HourRow): void {
  for (const family of FAMILIES)
    tables.get(family.id)!.addRow(
      row.name,
      family.dimensions.map((d) => row.dims[d]),
      row.states,
      row.device,
    );
}

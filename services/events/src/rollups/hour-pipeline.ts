import type { Document, FindOptions } from 'mongodb';
import { deviceIndex } from '../metrics/aggregate';
import { hourRowParts, statesOfRow, type RowStates } from '../metrics/registry';
import { pipelineValue, storedOf, type Dimension } from '../storage/dimensions';
import type { FamilyTable } from './cell-table';
import { eventRowOf, fieldsRead } from './event-rows';
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
  return [{ $match: hourMatch(from, to) }, { $group: hourGroup() }, { $sort: { '_id.o': 1 } }];
}

function hourMatch(from: Date, to: Date): Document {
  return { created: { $gte: from, $lt: to }, bot: { $ne: true } };
}

function hourGroup(): Document {
  const { key, group } = hourRowParts();
  const id: Document = { o: '$owner_id', h: { $hour: '$created' }, n: '$name', d: '$device_type' };
  for (const dimension of FAMILY_DIMENSIONS) id[dimension] = pipelineValue(dimension);
  Object.assign(id, key);
  return { _id: id, ...group };
}

/** The raw read of the hours being built: what the hour pipeline matches, sorted by owner, only the fields its `$group` reads. */
export interface HourEventRead {
  filter: Document;
  options: FindOptions;
  /** One event's row, as the hour pipeline's `$group` would output it for that event alone. */
  rowOf(event: Document): Document;
}

/**
 * Events per batch of the builder's raw read. Without it a server fills each batch up to 16 MiB
 * (the stand-in sends the whole rest of the day in one): a batch of small events parsed by the
 * driver holds several times its bytes, and the read keeps two batches, which took more heap than
 * the largest owner's cells (a one-tenant flood at the default cell cap: `pnpm bench:flood-hour`).
 * 2,000 events are a few MB held; the next batch is fetched while one is merged (hour-reads.ts).
 */
const HOUR_READ_BATCH = 2000;

/**
 * The builder's read of raw events for [from, to): a plain `find`, grouped in Node (event-rows.ts)
 * instead of by the server. Sorted by owner so one owner's cells are held at a time; the sort may
 * spill to disk on MongoDB (an index on owner_id leads every bucket index), and the stand-in sorts
 * the day's events in memory either way.
 */
export function hourEventRead(from: Date, to: Date): HourEventRead {
  const group = hourGroup();
  return {
    filter: hourMatch(from, to),
    options: {
      projection: Object.fromEntries(fieldsRead(group).map((f) => [f, 1])),
      sort: { owner_id: 1 },
      allowDiskUse: true,
      batchSize: HOUR_READ_BATCH,
    },
    rowOf: eventRowOf(group),
  };
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
  for (const family of FAMILIES) tables.get(family.id)!.addRowOf(row.name, row.dims, row.states, row.device);
}

import { DEVICE_ORDER, type RawEvent } from '../../src/metrics/aggregate';
import {
  AGGREGATE_NAMES,
  aggregateOf,
  emptyCellValue,
  type AggregateName,
  type CellValue,
} from '../../src/metrics/registry';
import { FamilyTable } from '../../src/rollups/cell-table';
import type { Family } from '../../src/rollups/families';
import { writePages } from '../../src/rollups/page-writer';
import { unitId } from '../../src/rollups/rollup-units';
import type { DistinctSketch } from '../../src/sketches/distinct-sketch';
import { visitorIndexOf, type VisitorIndex } from '../../src/sketches/visitor-dictionary';
import type { EventDocument } from '../../src/storage/event-document';
import { OWNERS, type RollupFixture } from './rollup-fixture';

/** An event's cell: each aggregate's state of that event alone, on its device. */
export function cellOf(event: EventDocument): CellValue {
  const value = emptyCellValue() as Record<AggregateName, unknown[]>;
  const device = DEVICE_ORDER.indexOf(event.device_type as (typeof DEVICE_ORDER)[number]);
  for (const name of AGGREGATE_NAMES) {
    const aggregate = aggregateOf(name);
    value[name][device] = aggregate.add(aggregate.empty(), event as unknown as RawEvent);
  }
  return value as CellValue;
}

/**
 * One owner's pages of one family, as the writer of `pageFormat` lays them out (not stored).
 * `visitors`: the owner's visitor dictionary of the unit (ownerVisitors), for formats 5 and later.
 */
export function familyPages(
  g: string,
  owner: string,
  family: Family,
  events: readonly EventDocument[],
  pageFormat: number,
  visitors?: VisitorIndex,
): ReturnType<typeof writePages> {
  const table = familyTable(owner, family, events);
  return table.size > 0 ? writePages(g, owner, family, table.sorted(), undefined, pageFormat, visitors) : [];
}

function familyTable(owner: string, family: Family, events: readonly EventDocument[]): FamilyTable {
  const table = new FamilyTable(family, 100_000);
  for (const e of events.filter((x) => x.owner_id === owner && !x.bot))
    table.add(
      e.name,
      family.dimensions.map((d) => (e[d as keyof EventDocument] as string | undefined) ?? ''),
      cellOf(e),
    );
  return table;
}

/** The owner's visitor dictionary of a unit of these events: every visitor of its exact sets, in every family. */
export function ownerVisitors(
  owner: string,
  families: readonly Family[],
  events: readonly EventDocument[],
): VisitorIndex | undefined {
  const lists: Array<readonly number[]> = [];
  for (const family of families)
    for (const entry of familyTable(owner, family, events).sorted())
      for (const state of entry.value.uniques as readonly DistinctSketch[])
        if (state.kind === 'exact' && state.hashes.length > 0) lists.push(state.hashes);
  return visitorIndexOf(lists);
}

/**
 * The day unit starting at `day` as an earlier release wrote it: pages of `families` laid out by
 * the writer of `pageFormat`, a manifest of format `manifestFormat`, and a mark saying the unit is
 * built from them. Returns the generation.
 */
export async function writeOldFormatDay(
  f: RollupFixture,
  events: readonly EventDocument[],
  old: { day: number; families: readonly Family[]; pageFormat: number; manifestFormat: number },
): Promise<string> {
  const unit = unitId({ level: 4, start: old.day });
  const g = `${unit}@format${old.manifestFormat}-0001`;
  const pages = OWNERS.flatMap((owner) => {
    const visitors = old.pageFormat >= 5 ? ownerVisitors(owner, old.families, events) : undefined;
    return old.families.flatMap((family) => familyPages(g, owner, family, events, old.pageFormat, visitors));
  });
  await f.db.collection('rollup_cells').insertMany(pages as never[]);
  await f.db
    .collection('rollup_cells_manifests')
    .insertOne({ _id: g, g, ids: pages.map((p) => p._id), parts: 1, v: old.manifestFormat } as never);
  await f.marks.collection.updateOne(
    { _id: unit },
    { $set: { l: 4, t: old.day, s: 1, f: 1, at: new Date(old.day), dirty: false, b: { s: 1, f: 1, g } } },
    { upsert: true },
  );
  return g;
}

import type { Logger } from '@cm/platform';
import type { Document } from 'mongodb';
import { firstKeptDay } from '../retention/expired-buckets';
import type { CellStore } from './cell-store';
import { FamilyTable } from './cell-table';
import { FAMILIES } from './families';
import { format2Tables } from './format-2-pages';
import { readableFormatTables } from './readable-format-pages';
import { legacyEntries } from './legacy-cells';
import { markFromDocument } from './mark-document';
import { ownerPages } from './owner-pages';
import { PAGE_FORMAT, READ_FORMATS, type CellPageDocument } from './page-layout';
import type { RollupMarks } from './rollup-marks';
import { DROPPED_LEVELS } from './rollup-units';
import type { UnitCommit } from './unit-commit';
import type { UnitMark } from './unit-mark';

export interface LegacyMigrationDeps {
  marks: RollupMarks;
  cells: CellStore;
  commit: UnitCommit;
  maxCellsPerOwner: number;
  rawRetentionDays: number;
  now: () => Date;
  logger?: Logger;
}

/**
 * What the builder's first pass does once per process for units of earlier releases. Units of
 * levels no longer kept are dropped. Units built by a release whose cells were of an earlier
 * format (the first: documents, legacy-cells.ts; the second: pages with the six-field attribution
 * family `a`, format-2-pages.ts): reports do not read them, so each is rebuilt once, at the
 * builder's first pass. Units of formats 3 to 5 (visitor samples or visitor sets holding their
 * hashes, or dictionaries and indexes in whole bytes: readable-format-pages.ts), which reports still read, are all converted at that pass. A unit whose raw events are all kept is reset to be built again the usual
 * way (hours from raw events, blocks from their children); one that starts before the raw
 * retention (rollups kept longer than raw events) is converted: its cells read in their format
 * and written as pages of this one, published like any build (compare-and-set on its marks and
 * generation). Events from before countries and campaign fields carry none of them, so a
 * first-format unit's country and attribution families hold them as unknown and empty, as a
 * rebuild from those events would.
 */
export class LegacyMigration {
  constructor(private readonly deps: LegacyMigrationDeps) {}

  async run(): Promise<{ reset: number; converted: number; dropped: number }> {
    const dropped = await this.dropUnkeptLevels();
    return { ...(await this.rebuildLegacy()), dropped };
  }

  /**
   * Units of the levels earlier releases kept and this one does not (2- and 8-hour blocks): their
   * marks go, then their cells. Nothing reads them; a writer of an earlier release still running
   * during an upgrade may mark one again, which the builder ignores and the next start drops.
   */
  private async dropUnkeptLevels(): Promise<number> {
    const { marks, cells } = this.deps;
    const unkept = await marks.collection
      .find({ l: { $in: [...DROPPED_LEVELS] } }, { projection: { b: 1, pending: 1 } })
      .toArray();
    if (unkept.length === 0) return 0;
    await marks.collection.deleteMany({ _id: { $in: unkept.map((m) => m._id) } });
    const gens = unkept.flatMap((m) => [...(m.b ? [m.b.g] : []), ...(m.pending ?? []).map((p) => p.g)]);
    await cells.dropGenerations(gens);
    return unkept.length;
  }

  private async rebuildLegacy(): Promise<{ reset: number; converted: number }> {
    const { marks, cells } = this.deps;
    const built = (
      await marks.collection
        .find({ b: { $exists: true }, retired: { $exists: false } }, { projection: { pending: 0 } })
        .toArray()
    ).map(markFromDocument);
    if (built.length === 0) return { reset: 0, converted: 0 };
    const gens = built.map((m) => m.built!.generation);
    const { legacy } = await cells.unusableGenerations(gens);
    const old = new Set(legacy);
    const formats = await cells.generationFormats(gens);
    const firstRaw = firstKeptDay(this.deps.now(), this.deps.rawRetentionDays);
    let reset = 0;
    let converted = 0;
    for (const mark of built) {
      const g = mark.built!.generation;
      const format = formats.get(g);
      // a format reports still read: converted whether or not its raw events are kept (decoding
      // and writing its pages again costs far less than building it from raw events)
      if (format !== undefined && format !== PAGE_FORMAT && !old.has(g)) {
        if (await this.convert(mark, format)) converted++;
        continue;
      }
      if (!old.has(g)) continue;
      if (mark.start >= firstRaw) {
        const res = await marks.collection.updateOne(
          { _id: mark.id, 'b.g': g },
          { $unset: { b: '' }, $set: { dirty: true } },
        );
        if (res.modifiedCount === 1) {
          reset++;
          await cells.dropGenerations([g]).catch(() => undefined);
        }
      } else if (await this.convert(mark, formats.get(g) ?? 1)) converted++;
    }
    if (reset + converted > 0)
      this.deps.logger?.info('rollup units of an earlier cell format rebuilt or converted', { reset, converted });
    return { reset, converted };
  }

  private async convert(mark: UnitMark, format: number): Promise<boolean> {
    const { cells, commit, now } = this.deps;
    const g = await commit.reserve(mark, now());
    if (!g) return false;
    try {
      const writer = cells.writer(g);
      for await (const { owner, docs } of cells.documentsByOwner(mark.built!.generation)) {
        const tables = READ_FORMATS.includes(format)
          ? readableFormatTables(docs as CellPageDocument[], this.deps.maxCellsPerOwner)
          : format === 2
            ? format2Tables(docs as CellPageDocument[], this.deps.maxCellsPerOwner)
            : this.firstFormatTables(docs);
        await writer.add(ownerPages(g, owner, tables));
      }
      await writer.finish();
      return await commit.publish(mark, g);
    } catch (err) {
      await commit.abandon(mark.id, g).catch(() => undefined);
      throw err;
    }
  }

  /** One owner's first-format documents as this format's family tables. */
  private firstFormatTables(docs: readonly Document[]): Map<string, FamilyTable> {
    const tables = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, this.deps.maxCellsPerOwner)]));
    for (const doc of docs) {
      for (const entry of legacyEntries(doc)) {
        for (const family of FAMILIES) {
          const keys = family.dimensions.map((d) =>
            d === 'content_id' ? entry.contentId : d === 'url' ? entry.url : '',
          );
          tables.get(family.id)!.add(entry.name, keys, entry.value);
        }
      }
    }
    return tables;
  }
}

import type { Db } from 'mongodb';
import { bucketName } from '../storage/bucket-naming';
import { decodeCellValue } from './aggregates/cell-aggregates';
import {
  FINE_KEYS,
  itemsAt,
  packCells,
  parseSides,
  type CellDocument,
  type FineEntry,
  type PackLimits,
} from './cell-document';
import { CellTable } from './cell-table';
import { GenerationGoneError, type CellStore } from './cell-store';
import { buildHourPipeline, readHourRow } from './hour-pipeline';
import type { BrokenUnits } from './broken-units';
import { isBuilt, type MarkDocument } from './mark-document';
import type { RollupMarks } from './rollup-marks';
import { HOUR_MS } from '../storage/time-units';
import { childrenOf, unitId } from './rollup-units';
import { isKilled, type UnitCommit } from './unit-commit';

/** Where a unit's outcome goes (rollup-builder.ts keeps failures apart from the rest of the pass). */
interface UnitOutcomes {
  built(mark: MarkDocument): void;
  failed(mark: MarkDocument, err: unknown): void;
}

export interface UnitBuildersDeps {
  db: Db;
  marks: RollupMarks;
  cells: CellStore;
  commit: UnitCommit;
  prefix: string;
  pack?: PackLimits;
  now: () => Date;
  outcomes: UnitOutcomes;
  broken: BrokenUnits;
}

/**
 * Builds units from their sources: hours from raw events (one pass over the day bucket for all
 * the hours of that day being built), days and blocks by merging their children's cells.
 * Each returns how many units became current.
 */
export class UnitBuilders {
  constructor(private readonly deps: UnitBuildersDeps) {}

  /**
   * Hours of one UTC day; the snapshots were read before anything below reads raw events. A
   * failure of one hour's cells gives up that hour only; a failure of the shared read, every hour.
   */
  async buildHours(dayStart: number, snapshots: readonly MarkDocument[]): Promise<number> {
    const { commit, now } = this.deps;
    const reserved: Array<{ mark: MarkDocument; g: string }> = [];
    const tables = new Map<number, CellTable>();
    let reserving: MarkDocument | undefined;
    try {
      for (const mark of snapshots) {
        reserving = mark;
        const g = await commit.reserve(mark, now());
        if (g) reserved.push({ mark, g });
      }
      reserving = undefined;
      if (reserved.length === 0) return 0;
      const from = Math.min(...reserved.map((r) => r.mark.t));
      const to = Math.max(...reserved.map((r) => r.mark.t)) + HOUR_MS;
      for (const r of reserved) tables.set(Math.round((r.mark.t - dayStart) / HOUR_MS), new CellTable());
      const bucket = this.deps.db.collection(bucketName(this.deps.prefix, new Date(dayStart)));
      for await (const doc of bucket.aggregate(buildHourPipeline(new Date(from), new Date(to)), {
        allowDiskUse: true,
      })) {
        const row = readHourRow(doc);
        tables.get(row.hour)?.addDeviceRow(row);
      }
    } catch (err) {
      if (isKilled(err)) throw err;
      for (const r of reserved) await this.giveUp(r.mark, r.g, err);
      if (reserving) this.deps.outcomes.failed(reserving, err);
      return 0;
    }
    let built = 0;
    for (const { mark, g } of reserved) {
      try {
        const table = tables.get(Math.round((mark.t - dayStart) / HOUR_MS))!;
        if (await commit.commit(mark, g, this.pack(table, g))) {
          built++;
          this.deps.outcomes.built(mark);
        }
      } catch (err) {
        if (isKilled(err)) throw err;
        await this.giveUp(mark, g, err);
      }
    }
    return built;
  }

  /**
   * A day or block from its children. Every child must be current (built for its marks); a
   * child without a mark was never written, or covers only days retention removed: a unit with
   * some of its days removed is retired with every unit above it, so it is never the parent
   * here. The children's generations are checked again after reading, since a replaced
   * generation's cells may have been dropped while they were read.
   */
  async buildMerged(snapshot: MarkDocument): Promise<boolean> {
    let g: string | undefined;
    try {
      const built = await this.merge(snapshot, (reserved) => (g = reserved));
      if (built) this.deps.outcomes.built(snapshot);
      return built;
    } catch (err) {
      if (isKilled(err)) throw err;
      if (g) await this.giveUp(snapshot, g, err);
      else this.deps.outcomes.failed(snapshot, err);
      return false;
    }
  }

  private async merge(snapshot: MarkDocument, onReserved: (g: string) => void): Promise<boolean> {
    const { marks, cells, commit, now } = this.deps;
    const unit = { level: snapshot.l, start: snapshot.t };
    const childIds = childrenOf(unit).map(unitId);
    const gens = await currentGenerations(marks, childIds);
    if (!gens) return false;
    const g = await commit.reserve(snapshot, now());
    if (!g) return false;
    onReserved(g);
    const docs: CellDocument[] = [];
    let owner: string | undefined;
    let table = new CellTable();
    const flush = () => {
      if (owner !== undefined) docs.push(...packCells(owner, g, table.byOwner().get(owner) ?? [], this.deps.pack));
      table = new CellTable();
    };
    let gone = false;
    try {
      for await (const doc of cells.finePagesByOwner(gens)) {
        if (doc.o !== owner) {
          flush();
          owner = doc.o;
        }
        const sides = parseSides(doc);
        (JSON.parse(doc.e) as FineEntry[]).forEach((entry, i) => {
          table.add(
            decodeCellValue(entry, FINE_KEYS, itemsAt(sides, i), {
              owner: doc.o,
              name: doc.n ?? '',
              contentId: entry[0],
              url: entry[1],
            }),
          );
        });
      }
      flush();
    } catch (err) {
      if (!(err instanceof GenerationGoneError)) throw err;
      // a child rebuilt meanwhile (its old cells dropped), or one pointing at missing cells:
      // the latter is reset to be rebuilt (the reset leaves a rebuilt child alone)
      await this.deps.broken.reset(err.generations, 'builder');
      gone = true;
    }
    const again = gone ? undefined : await currentGenerations(marks, childIds);
    if (!again || again.join() !== gens.join()) {
      await commit.abandon(snapshot._id, g);
      return false;
    }
    return commit.commit(snapshot, g, docs);
  }

  /** A failed build: its reservation goes (else the unit would wait for the sweep), and the failure is reported. */
  private async giveUp(mark: MarkDocument, g: string, err: unknown): Promise<void> {
    // if this fails too, the sweep drops the generation after ROLLUP_ABANDON_MS
    await this.deps.commit.abandon(mark._id, g).catch(() => undefined);
    this.deps.outcomes.failed(mark, err);
  }

  private pack(table: CellTable, g: string): CellDocument[] {
    const docs: CellDocument[] = [];
    for (const [owner, list] of table.byOwner()) docs.push(...packCells(owner, g, list, this.deps.pack));
    return docs;
  }
}

/** The current generations of these units, or undefined when one of them is not built for its marks. */
async function currentGenerations(marks: RollupMarks, ids: readonly string[]): Promise<string[] | undefined> {
  const docs = await marks.collection.find({ _id: { $in: [...ids] } }).toArray();
  const gens: string[] = [];
  for (const mark of docs.sort((a, b) => a.t - b.t)) {
    if (!isBuilt(mark)) return undefined;
    gens.push(mark.b!.g);
  }
  return gens;
}

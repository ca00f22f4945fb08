import type { Db } from 'mongodb';
import type { BrokenUnits } from './broken-units';
import { GenerationGoneError, LegacyGenerationError, type CellStore } from './cell-store';
import { currentChildren, mergeChildPages } from './child-pages';
import { FamilyTable } from './cell-table';
import { FAMILIES } from './families';
import type { GenerationWriter } from './generation-writer';
import { addHourRow } from './hour-pipeline';
import { HourRead } from './hour-reads';
import { ownerPages } from './owner-pages';
import type { CellPageDocument } from './page-layout';
import type { RollupMarks } from './rollup-marks';
import { HOUR_MS } from '../storage/time-units';
import { childrenOf, parseUnitId, unitId, unitSizeMs } from './rollup-units';
import { writeOwnerDay, type DayUnit, type OwnerTables } from './day-units';
import { isKilled, type UnitCommit } from './unit-commit';
import { ZONE_DAY_FAMILIES } from './zone-days';
import type { UnitMark } from './unit-mark';

/** Where a unit's outcome goes (rollup-builder.ts keeps failures apart from the rest of the pass). */
interface UnitOutcomes {
  built(mark: UnitMark): void;
  failed(mark: UnitMark, err: unknown): void;
  /** An owner's family in a unit passed its cell cap: kept as a marked first page only. */
  overCap(level: number, owner: string, family: string): void;
}

export interface UnitBuildersDeps {
  db: Db;
  marks: RollupMarks;
  cells: CellStore;
  commit: UnitCommit;
  prefix: string;
  /** Cells one owner may have in one family of one unit (ROLLUP_MAX_CELLS_PER_OWNER). */
  maxCellsPerOwner: number;
  /** Bytes per stored page (tests make it small). */
  maxPageBytes?: number;
  now: () => Date;
  outcomes: UnitOutcomes;
  broken: BrokenUnits;
}

/**
 * Builds units from their sources: hours from raw events (one pass over the day bucket for all
 * the hours of that day being built), days and blocks by merging their children's pages. Either
 * way one owner's cells at a time are held and written (its tables capped per family), so a
 * build's memory is bounded by the largest owner, not by the unit. Each returns how many units
 * became current.
 */
export class UnitBuilders {
  constructor(private readonly deps: UnitBuildersDeps) {}

  /**
   * Hours of one UTC day, and `parents` of that day (4-hour units, the day; ready, snapshots read
   * with the hours') whose every hour is among them: those are made from the hours' tables in the
   * same pass (day-units.ts). The snapshots were read before anything below reads raw events. A
   * failure of one unit's pages gives up that unit only; a failure of the shared read, every one.
   * Returns the units that became current, and the parents this pass took on (built or failed).
   */
  async buildHours(
    dayStart: number,
    snapshots: readonly UnitMark[],
    read = this.openHours(dayStart, snapshots),
    parents: readonly UnitMark[] = [],
  ): Promise<{ built: UnitMark[]; taken: UnitMark[] }> {
    try {
      return await this.hoursFrom(dayStart, snapshots, read, parents);
    } finally {
      await read.close();
    }
  }

  /** The raw read of these hours, started now (the builder opens the next day's while it builds this one). */
  openHours(dayStart: number, snapshots: readonly UnitMark[]): HourRead {
    return new HourRead(this.deps.db, this.deps.prefix, dayStart, snapshots);
  }

  private async hoursFrom(
    dayStart: number,
    snapshots: readonly UnitMark[],
    read: HourRead,
    parentMarks: readonly UnitMark[],
  ): Promise<{ built: UnitMark[]; taken: UnitMark[] }> {
    const { commit, now, cells } = this.deps;
    const hours = new Map<number, DayUnit>();
    const parents: DayUnit[] = [];
    const unit = async (mark: UnitMark): Promise<DayUnit | undefined> => {
      const g = await commit.reserve(mark, now());
      const first = Math.round((mark.start - dayStart) / HOUR_MS);
      const span = Math.round(unitSizeMs(mark.level) / HOUR_MS);
      return g ? { mark, g, writer: cells.writer(g, true), first, span } : undefined;
    };
    let reserving: UnitMark | undefined;
    try {
      for (const mark of snapshots) {
        reserving = mark;
        const h = await unit(mark);
        if (h) hours.set(h.first, h);
      }
      if (hours.size === 0) return { built: [], taken: [] };
      // smaller first: a day absorbs its 4-hour units' tables once those are written
      for (const mark of [...parentMarks].sort((a, b) => a.level - b.level || a.start - b.start)) {
        const first = Math.round((mark.start - dayStart) / HOUR_MS);
        const span = Math.round(unitSizeMs(mark.level) / HOUR_MS);
        if (!Array.from({ length: span }, (_, i) => first + i).every((h) => hours.has(h))) continue;
        reserving = mark;
        const p = await unit(mark);
        if (p) parents.push(p);
      }
      reserving = undefined;
      let owner: string | undefined;
      let tables = new Map<number, OwnerTables>();
      const io = {
        tables: () => this.tables(),
        pages: (u: DayUnit, o: string, t: OwnerTables) => this.pages(u.g, u.mark.level, o, t),
      };
      const flush = async () => {
        await writeOwnerDay(owner!, tables, hours, parents, io);
        tables = new Map();
      };
      for await (const row of read.rows()) {
        if (!hours.has(row.hour)) continue;
        if (row.owner !== owner) {
          if (owner !== undefined) await flush();
          owner = row.owner;
        }
        let byFamily = tables.get(row.hour);
        if (!byFamily) tables.set(row.hour, (byFamily = this.tables()));
        addHourRow(byFamily, row);
      }
      if (owner !== undefined) await flush();
    } catch (err) {
      if (isKilled(err)) throw err;
      for (const u of [...hours.values(), ...parents]) await this.giveUp(u.mark, u.g, err, u.writer);
      if (reserving) this.deps.outcomes.failed(reserving, err);
      const taken = parents.map((p) => p.mark);
      return { built: [], taken: reserving && reserving.level > 0 ? [...taken, reserving] : taken };
    }
    const built: UnitMark[] = [];
    for (const { mark, g, writer, error } of [...hours.values(), ...parents]) {
      try {
        if (error !== undefined) throw error;
        await writer.finish();
        if (await commit.publish(mark, g)) {
          built.push(mark);
          this.deps.outcomes.built(mark);
        }
      } catch (err) {
        if (isKilled(err)) throw err;
        await this.giveUp(mark, g, err, writer);
      }
    }
    return { built, taken: parents.map((p) => p.mark) };
  }

  /**
   * A day or block from its children. Every child must be current (built for its marks); a
   * child without a mark was never written, or covers only days retention removed: a unit with
   * some of its days removed is retired with every unit above it, so it is never the parent
   * here. The children's generations are checked again after reading, since a replaced
   * generation's pages may have been dropped while they were read. A child's page that does not
   * decode never fails the parent for every owner: BrokenUnits.damaged resets a child that can
   * be rebuilt (the parent waits), or leaves the owner out of both (`built.lost`) when it cannot.
   */
  async buildMerged(snapshot: UnitMark): Promise<boolean> {
    let g: string | undefined;
    let writer: GenerationWriter | undefined;
    try {
      const built = await this.merge(snapshot, (reserved, w) => {
        g = reserved;
        writer = w;
      });
      if (built) this.deps.outcomes.built(snapshot);
      return built;
    } catch (err) {
      if (isKilled(err)) throw err;
      if (g) await this.giveUp(snapshot, g, err, writer);
      else this.deps.outcomes.failed(snapshot, err);
      return false;
    }
  }

  private async merge(snapshot: UnitMark, onReserved: (g: string, writer: GenerationWriter) => void): Promise<boolean> {
    const { marks, cells, commit, now } = this.deps;
    // a zone day's zone is in its id; its children are its hours
    const unit = parseUnitId(snapshot.id) ?? { level: snapshot.level, start: snapshot.start };
    const childIds = childrenOf(unit).map(unitId);
    // a zone day keeps only the families its reports read (zone-days.ts), made from those of its hours
    const families = unit.zone !== undefined ? ZONE_DAY_FAMILIES : undefined;
    const children = await currentChildren(marks, childIds);
    if (!children) return false;
    const g = await commit.reserve(snapshot, now());
    if (!g) return false;
    const writer = cells.writer(g, true);
    onReserved(g, writer);
    // owners whose cells a child lacks, or whose pages in a child that cannot be rebuilt do not decode
    const lost = new Set(children.lost);
    let gone = false;
    try {
      for await (const { owner, pages } of cells.pagesByOwner(children.gens, families)) {
        if (lost.has(owner)) continue;
        const byFamily = this.tables(families);
        const damaged = mergeChildPages(pages, byFamily);
        if (damaged.length > 0) {
          // a child that can be computed again is reset and this parent waits for it; one that
          // cannot keeps its other owners, and this owner is left out of the parent as well
          if ((await this.deps.broken.damaged(damaged, 'builder')).rebuilding) {
            gone = true;
            break;
          }
          lost.add(owner);
          continue;
        }
        await writer.add(this.pages(g, snapshot.level, owner, byFamily));
      }
    } catch (err) {
      // a child of the first format: the parent waits until the migration rebuilt or converted it
      if (err instanceof LegacyGenerationError) {
        await writer.settled();
        await commit.abandon(snapshot.id, g);
        return false;
      }
      if (!(err instanceof GenerationGoneError)) throw err;
      // a child rebuilt meanwhile (its old pages dropped), or one pointing at missing or old
      // pages: the latter is reset to be rebuilt (the reset leaves a rebuilt child alone)
      await this.deps.broken.reset(err.generations, 'builder');
      gone = true;
    }
    const again = gone ? undefined : await currentChildren(marks, childIds);
    if (!again || again.gens.join() !== children.gens.join()) {
      await writer.settled();
      await commit.abandon(snapshot.id, g);
      return false;
    }
    await writer.finish();
    return commit.publish(snapshot, g, [...lost].sort());
  }

  /** A failed build: its reservation goes (else the unit would wait for the sweep), and the failure is reported. */
  private async giveUp(mark: UnitMark, g: string, err: unknown, writer?: GenerationWriter): Promise<void> {
    // no page of it may land after it is dropped
    await writer?.settled();
    // if this fails too, the sweep drops the generation after ROLLUP_ABANDON_MS
    await this.deps.commit.abandon(mark.id, g).catch(() => undefined);
    this.deps.outcomes.failed(mark, err);
  }

  /** An owner's empty tables: of every family, or of `only` these (a zone day's). */
  private tables(only?: readonly string[]): OwnerTables {
    const families = only === undefined ? FAMILIES : FAMILIES.filter((f) => only.includes(f.id));
    return new Map(families.map((family) => [family.id, new FamilyTable(family, this.deps.maxCellsPerOwner)]));
  }

  /** One owner's pages of every family (owner-pages.ts); a family past its cap is reported. */
  private pages(g: string, level: number, owner: string, byFamily: OwnerTables): CellPageDocument[] {
    for (const table of byFamily.values()) if (table.over) this.deps.outcomes.overCap(level, owner, table.family.id);
    return ownerPages(g, owner, byFamily, this.deps.maxPageBytes);
  }
}

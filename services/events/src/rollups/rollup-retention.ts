import type { CellStore } from './cell-store';
import type { MarkDocument } from './mark-document';
import type { RollupMarks } from './rollup-marks';
import { HOUR_MS, DAY_MS } from '../storage/time-units';
import { LEVELS, parseUnitId, unitAt, unitEnd, unitId, type UnitRef } from './rollup-units';
import { ZONE_DAY_LEVEL, zoneDayStart } from './zone-days';

/**
 * Drops rollups of days past their retention. A unit wholly before the cutoff goes (mark, then
 * the cells of every generation it pointed to). A unit the cutoff falls inside (a block reaching
 * past it) is retired instead: its mark stays, flagged, with its cells dropped. A retired unit is
 * never built or used again, and a later write to its kept part cannot clear the flag; without it
 * that write would recreate the mark and the builder would merge only the children that survived,
 * leaving out kept days whose child covered the cutoff. Reports answer it from its kept children
 * or raw events; it goes once the cutoff passes its end. Zone days go the same way: the zone day
 * of each configured zone that holds the cutoff is retired, and one wholly before it dropped.
 */
export class RollupRetention {
  constructor(
    private readonly marks: RollupMarks,
    private readonly cells: CellStore,
    /** ROLLUP_ZONES: whose days may straddle a cutoff (a UTC midnight). */
    private readonly zones: readonly string[] = [],
  ) {}

  /** Retires the units `cutoff` (epoch ms) falls inside, drops those wholly before it; returns how many units went. */
  async dropBefore(cutoff: number, now = new Date()): Promise<number> {
    // retired first: a crash before the deletions leaves no parent that could be built or used without them
    await this.retireAround(cutoff, now);
    const before = await this.marks.collection
      .find({ t: { $lt: cutoff } }, { projection: { _id: 1, l: 1, t: 1, b: 1, pending: 1 } })
      .toArray();
    const doomed = before.filter((m) => endOf(m) <= cutoff);
    if (doomed.length === 0) return 0;
    await this.marks.collection.deleteMany({ _id: { $in: doomed.map((m) => m._id) } });
    await this.cells.dropGenerations(doomed.flatMap(generationsOf));
    return doomed.length;
  }

  /**
   * Every unit the cutoff falls inside, marked or not (a unit never written yet, or whose mark an
   * earlier version deleted, is retired too). The flag is set before the cells are read: from then
   * on no build can publish on the unit, so the generation read is the last one.
   */
  private async retireAround(cutoff: number, now: Date): Promise<void> {
    const straddling: UnitRef[] = LEVELS.map((level) => unitAt(level, cutoff)).filter((unit) => unit.start < cutoff);
    for (const zone of this.zones) {
      const start = zoneDayStart(zone, cutoff);
      if (start !== undefined && start < cutoff) straddling.push({ level: ZONE_DAY_LEVEL, start, zone });
    }
    if (straddling.length === 0) return;
    await this.marks.collection.bulkWrite(
      straddling.map((unit) => ({
        updateOne: {
          filter: { _id: unitId(unit) },
          update: {
            $set: { retired: true as const, dirty: false },
            $setOnInsert: { l: unit.level, t: unit.start, s: 0, f: 0, at: now },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    const built = await this.marks.collection
      .find({ _id: { $in: straddling.map(unitId) }, b: { $exists: true } }, { projection: { b: 1 } })
      .toArray();
    for (const mark of built) {
      await this.marks.collection.updateOne({ _id: mark._id, 'b.g': mark.b!.g }, { $unset: { b: '' } });
      await this.cells.dropGenerations([mark.b!.g]);
    }
  }
}

/** Where a stored unit ends; a zone day whose id no longer parses is taken as long as a day can be. */
function endOf(m: Pick<MarkDocument, '_id' | 'l' | 't'>): number {
  const unit = parseUnitId(m._id);
  if (unit) return unitEnd(unit);
  return m.l === ZONE_DAY_LEVEL ? m.t + DAY_MS + HOUR_MS : unitEnd({ level: m.l, start: m.t });
}

/** The generations of a mark: the published one and any being written. */
function generationsOf(mark: Pick<MarkDocument, 'b' | 'pending'>): string[] {
  return [...(mark.b ? [mark.b.g] : []), ...(mark.pending ?? []).map((p) => p.g)];
}

import type { Collection, Db } from 'mongodb';
import { ensureIndexes, type IndexDefinition } from '@cm/platform';
import type { MarkDocument } from './mark-document';
import { touchedUnits, unitId } from './rollup-units';

export const MARKS_COLLECTION = 'rollup_marks';

const MARK_INDEXES: IndexDefinition[] = [
  // reports and builds look marks up by _id only (computed unit ids): hash lookups everywhere
  { key: { dirty: 1, l: 1, t: 1 }, options: { name: 'dirty_level_start' }, serves: 'RollupBuilder and the status endpoint: the dirty units' },
  { key: { t: 1 }, options: { name: 'start' }, serves: 'RollupRetention: the units that start before the cutoff' },
];

/**
 * The writer's half of the rollup protocol (see reporting/README.md): `begin` before an insert
 * bumps `started` on every unit (hour, day, blocks) the documents fall in, `end` after the
 * insert's outcome is known bumps `finished`. One bulk write each, whatever the batch size.
 */
export class RollupMarks {
  readonly collection: Collection<MarkDocument>;

  constructor(db: Db, private readonly now: () => Date = () => new Date()) {
    this.collection = db.collection<MarkDocument>(MARKS_COLLECTION);
  }

  async init(): Promise<void> {
    await ensureIndexes(this.collection, MARK_INDEXES);
  }

  /** Marks a write as started on the units of these instants; returns the unit ids for `end`. */
  async begin(instants: readonly Date[]): Promise<string[]> {
    const units = touchedUnits(instants);
    const at = this.now();
    await this.collection.bulkWrite(
      units.map((u) => ({
        updateOne: {
          filter: { _id: unitId(u) },
          update: { $inc: { s: 1 }, $set: { dirty: true, at }, $setOnInsert: { l: u.level, t: u.start, f: 0 } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    return units.map(unitId);
  }

  /** Marks the write as finished: only once its outcome is known (written, duplicate or refused). */
  async end(ids: readonly string[]): Promise<void> {
    const at = this.now();
    await this.collection.bulkWrite(
      ids.map((id) => ({ updateOne: { filter: { _id: id }, update: { $inc: { f: 1 }, $set: { dirty: true, at } } } })),
      { ordered: false },
    );
  }
}

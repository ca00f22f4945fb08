import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { ensureIndexes, type IndexDefinition } from '@cm/platform';
import { markFromDocument, PLANNING_PROJECTION, type MarkDocument } from './mark-document';
import { parseUnitId, touchedUnits, unitId, type UnitRef } from './rollup-units';
import type { UnitMark } from './unit-mark';

const MARKS_COLLECTION = 'rollup_marks';

const MARK_INDEXES: IndexDefinition[] = [
  // reports and builds look marks up by _id only (computed unit ids): hash lookups everywhere
  {
    key: { dirty: 1, l: 1, t: 1 },
    options: { name: 'dirty_level_start' },
    serves: 'RollupBuilder and the status endpoint: the dirty units',
  },
  { key: { t: 1 }, options: { name: 'start' }, serves: 'RollupRetention: the units that start before the cutoff' },
];

/** How long a finished mark may wait for a started one to travel with. */
const FINISH_DELAY_MS = 100;

interface Pending {
  units: readonly UnitRef[];
  /** started, finished, or only a fresh `at` (a write still in flight). */
  field: 's' | 'f' | 'a';
  done: { resolve(): void; reject(err: unknown): void };
}

/**
 * The writer's half of the rollup protocol (see docs/architecture.md, "Rollups"): `begin` before
 * an insert bumps `started` on every unit (hour .. 32-day block) the documents fall in and
 * resolves only once that is stored; `end` after the insert's outcome is known bumps `finished`.
 * Marks asked for while a bulk write is in flight go out together in the next one (group commit).
 * A `finished` mark is not urgent (until it is stored the unit is only answered from raw events),
 * so it waits for the next `begin` (at most FINISH_DELAY_MS): under load the finish of one batch
 * and the start of the next touch the same units and go out as one upsert per unit, one small
 * bulk write per batch instead of two.
 *
 * Also the marks' reads for the builder, the operator and the report planner, in domain names
 * (unit-mark.ts): the stored names are short (mark-document.ts) and stay in the store files.
 */
export class RollupMarks {
  /** For the store files only (unit-commit.ts, broken-units.ts, rollup-retention.ts, legacy-migration.ts). */
  readonly collection: Collection<MarkDocument>;
  private queue: Pending[] = [];
  private flushing?: Promise<void>;
  private finishTimer?: NodeJS.Timeout;

  /** `zones`: ROLLUP_ZONES, whose days `begin` marks beside the UTC units (none for a reader). */
  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
    private readonly zones: readonly string[] = [],
  ) {
    this.collection = db.collection<MarkDocument>(MARKS_COLLECTION);
  }

  async init(): Promise<void> {
    await ensureIndexes(this.collection, MARK_INDEXES);
  }

  /** Marks a write as started on the units of these instants (stored when this resolves); returns the unit ids for `end`. */
  async begin(instants: readonly Date[]): Promise<string[]> {
    const units = touchedUnits(instants, this.zones);
    await this.start(units);
    return units.map(unitId);
  }

  /** Marks the write as finished: only once its outcome is known (written, duplicate or refused). */
  end(ids: readonly string[]): Promise<void> {
    return this.finish(ids.map((id) => parseUnitId(id)!).filter(Boolean));
  }

  /** `started += 1` on these units, stored when this resolves (HeldMarks holds one for many writes). */
  start(units: readonly UnitRef[]): Promise<void> {
    return this.enqueue(units, 's');
  }

  /** `finished += 1` on these units (may wait up to FINISH_DELAY_MS for a started mark to travel with). */
  finish(units: readonly UnitRef[]): Promise<void> {
    return this.enqueue(units, 'f');
  }

  /** Stores a fresh `at` on these units (their writes are still in flight), counting nothing; goes out at once. */
  touch(units: readonly UnitRef[]): Promise<void> {
    return this.enqueue(units, 'a');
  }

  /** Every dirty unit's mark (retired ones too). */
  async dirty(): Promise<UnitMark[]> {
    return (await this.collection.find({ dirty: true }).toArray()).map(markFromDocument);
  }

  /**
   * The marks of these units that have one, by `_id` only (hash lookups: a query by level and
   * time would scan the marks on the stand-in). `forPlanning`: only the fields a report's plan
   * reads (PLANNING_PROJECTION; the others stay undefined).
   */
  async byIds(ids: readonly string[], opts: { forPlanning?: boolean; maxTimeMS?: number } = {}): Promise<UnitMark[]> {
    const docs = await this.collection
      .find(
        { _id: { $in: [...ids] } },
        {
          ...(opts.forPlanning ? { projection: PLANNING_PROJECTION } : {}),
          ...(opts.maxTimeMS !== undefined ? { maxTimeMS: opts.maxTimeMS } : {}),
        },
      )
      .toArray();
    return docs.map(markFromDocument);
  }

  /** The current generation of each of these units that is built (whether for its marks or not). */
  async builtGenerations(ids: readonly string[], maxTimeMS: number): Promise<Map<string, string>> {
    const docs = await this.collection.find({ _id: { $in: [...ids] } }, { projection: { b: 1 }, maxTimeMS }).toArray();
    const out = new Map<string, string>();
    for (const doc of docs) if (doc.b) out.set(doc._id, doc.b.g);
    return out;
  }

  /** Dirty units, their level, start and whether retired only (the operator's status). */
  async dirtyUnits(): Promise<Array<Pick<UnitMark, 'id' | 'level' | 'start' | 'retired'>>> {
    const docs = await this.collection.find({ dirty: true }, { projection: { l: 1, t: 1, retired: 1 } }).toArray();
    return docs.map((m) => ({ id: m._id, level: m.l, start: m.t, ...(m.retired ? { retired: true } : {}) }));
  }

  async countDirtyHours(): Promise<number> {
    return this.collection.countDocuments({ dirty: true, l: 0 });
  }

  /** Generations being written now (or left by a builder that died), over every unit. */
  async countPendingGenerations(): Promise<number> {
    const docs = await this.collection
      .find({ 'pending.0': { $exists: true } }, { projection: { pending: 1 } })
      .toArray();
    return docs.reduce((n, m) => n + (m.pending?.length ?? 0), 0);
  }

  /** Waits until every mark asked for is stored (graceful stop). */
  async drain(): Promise<void> {
    this.kick();
    while (this.flushing) {
      await this.flushing.catch(() => undefined);
      this.kick();
    }
  }

  private enqueue(units: readonly UnitRef[], field: Pending['field']): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ units, field, done: { resolve, reject } });
      this.schedule();
    });
  }

  /** A started mark goes out at once (an insert waits for it), so does a fresh `at`; finished marks alone wait a little. */
  private schedule(): void {
    if (this.queue.some((p) => p.field !== 'f')) this.kick();
    else if (this.queue.length > 0 && !this.finishTimer) {
      this.finishTimer = setTimeout(() => this.kick(), FINISH_DELAY_MS);
      this.finishTimer.unref();
    }
  }

  private kick(): void {
    clearTimeout(this.finishTimer);
    this.finishTimer = undefined;
    if (this.flushing || this.queue.length === 0) return;
    const batch = this.queue.splice(0);
    this.flushing = this.write(batch)
      .then(
        () => batch.forEach((p) => p.done.resolve()),
        (err: unknown) => batch.forEach((p) => p.done.reject(err)),
      )
      .finally(() => {
        this.flushing = undefined;
        this.schedule();
      });
  }

  /** One bulk write: per unit the started and finished increments of every mark in the batch. */
  private async write(batch: readonly Pending[]): Promise<void> {
    const incs = new Map<string, { unit: UnitRef; s: number; f: number; a: number }>();
    for (const p of batch) {
      for (const unit of p.units) {
        const id = unitId(unit);
        const inc = incs.get(id) ?? { unit, s: 0, f: 0, a: 0 };
        inc[p.field]++;
        incs.set(id, inc);
      }
    }
    const at = this.now();
    const ops: AnyBulkWriteOperation<MarkDocument>[] = [...incs].map(([id, { unit, s, f }]) =>
      s === 0 && f === 0
        ? // only a fresh `at`: never creates a mark (retention may have dropped it)
          { updateOne: { filter: { _id: id }, update: { $set: { at } } } }
        : {
            updateOne: {
              filter: { _id: id },
              update: { $inc: { s, f }, $set: { dirty: true, at }, $setOnInsert: { l: unit.level, t: unit.start } },
              upsert: true,
            },
          },
    );
    await this.collection.bulkWrite(ops, { ordered: false });
  }
}

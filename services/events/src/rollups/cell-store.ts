import type { Collection, Db, FindCursor } from 'mongodb';
import { ensureIndexes, type IndexDefinition } from '@cm/platform';
import type { CellDocument } from './cell-document';

export const CELLS_COLLECTION = 'rollup_cells';

const CELL_INDEXES: IndexDefinition[] = [
  { key: { o: 1, g: 1, k: 1, n: 1 }, options: { name: 'owner_generation_kind_name' }, serves: 'a report: one owner, the generations of its planned units, fine or coarse, names' },
  { key: { g: 1, o: 1 }, options: { name: 'generation_owner' }, serves: 'merging children into a parent unit (by owner), dropping a replaced generation' },
];

const INSERT_CHUNK = 200;

/** The packed cells of every unit generation (see cell-document.ts). */
export class CellStore {
  readonly collection: Collection<CellDocument>;

  constructor(db: Db) {
    this.collection = db.collection<CellDocument>(CELLS_COLLECTION);
  }

  async init(): Promise<void> {
    await ensureIndexes(this.collection, CELL_INDEXES);
  }

  async insert(docs: readonly CellDocument[]): Promise<void> {
    for (let i = 0; i < docs.length; i += INSERT_CHUNK) {
      await this.collection.insertMany(docs.slice(i, i + INSERT_CHUNK).map((d) => ({ ...d })), { ordered: false });
    }
  }

  async dropGenerations(gens: readonly string[]): Promise<void> {
    if (gens.length > 0) await this.collection.deleteMany({ g: { $in: [...gens] } });
  }

  /** Every owner's cells of these generations, owner by owner (for merging into a parent unit). */
  byOwner(gens: readonly string[]): FindCursor<CellDocument> {
    return this.collection.find({ g: { $in: [...gens] } }, { projection: { _id: 0 } }).sort({ o: 1 });
  }

  /** One owner's cells of these generations for a report (names narrow fine documents only; latest events only when wanted). */
  forReport(owner: string, gens: readonly string[], kind: 'c' | 'f', names: readonly string[] | undefined, withLatest: boolean, maxTimeMS: number): FindCursor<CellDocument> {
    const filter: Record<string, unknown> = { o: owner, g: gens.length === 1 ? gens[0] : { $in: [...gens] }, k: kind };
    if (kind === 'f' && names) filter.n = names.length === 1 ? names[0] : { $in: [...names] };
    const projection = { _id: 0, e: 1, k: 1, n: 1, g: 1, ...(withLatest ? { l: 1 } : {}) };
    return this.collection.find(filter, { projection, maxTimeMS });
  }
}

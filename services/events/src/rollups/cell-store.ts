import type { Collection, Db } from 'mongodb';
import { coarsePageIds, finePageIds, cellId, type CellDocument } from './cell-document';

export const CELLS_COLLECTION = 'rollup_cells';

/** The ids of one generation's documents, written before them so a dead build can be swept. */
interface ManifestDocument {
  _id: string;
  ids: string[];
}

const ID_CHUNK = 1000;

/** A generation being read was dropped meanwhile (its unit was rebuilt): the reader starts over. */
export class GenerationGoneError extends Error {
  constructor() {
    super('a cell generation was dropped while it was read');
  }
}
const INSERT_CHUNK = 200;

/**
 * The packed cells of every unit generation (see cell-document.ts). Every read is by `_id`
 * (`$in`): those are hash lookups on any server, while a secondary-index or range query is a
 * collection scan on the MongoDB stand-in. A generation's manifest lists its documents, so merging
 * and dropping a generation need no query by field either.
 */
export class CellStore {
  readonly collection: Collection<CellDocument>;
  private readonly manifests: Collection<ManifestDocument>;

  constructor(db: Db) {
    this.collection = db.collection<CellDocument>(CELLS_COLLECTION);
    this.manifests = db.collection<ManifestDocument>(`${CELLS_COLLECTION}_manifests`);
  }

  /** Writes a generation: its manifest first, then its documents. */
  async insert(g: string, docs: readonly CellDocument[]): Promise<void> {
    await this.manifests.insertOne({ _id: g, ids: docs.map((d) => d._id) });
    for (let i = 0; i < docs.length; i += INSERT_CHUNK) {
      await this.collection.insertMany(docs.slice(i, i + INSERT_CHUNK).map((d) => ({ ...d })), { ordered: false });
    }
  }

  async dropGenerations(gens: readonly string[]): Promise<void> {
    if (gens.length === 0) return;
    const manifests = await this.manifests.find({ _id: { $in: [...gens] } }).toArray();
    const ids = manifests.flatMap((m) => m.ids);
    for (let i = 0; i < ids.length; i += ID_CHUNK) await this.collection.deleteMany({ _id: { $in: ids.slice(i, i + ID_CHUNK) } });
    await this.manifests.deleteMany({ _id: { $in: [...gens] } });
  }

  /** The fine pages of these generations, owner by owner (for merging into a parent unit: one owner in memory at a time). */
  async *finePagesByOwner(gens: readonly string[]): AsyncGenerator<CellDocument> {
    const manifests = await this.manifests.find({ _id: { $in: [...gens] } }).toArray();
    if (manifests.length !== new Set(gens).size) throw new GenerationGoneError();
    const byOwner = new Map<string, string[]>();
    for (const id of manifests.flatMap((m) => m.ids)) {
      const [kind, , owner] = JSON.parse(id) as [string, string, string];
      if (kind !== 'f') continue;
      const list = byOwner.get(owner);
      if (list) list.push(id);
      else byOwner.set(owner, [id]);
    }
    for (const ids of byOwner.values()) {
      for (let i = 0; i < ids.length; i += ID_CHUNK) yield* await this.collection.find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }).toArray();
    }
  }

  /**
   * One owner's cells of these generations for a report: the directories (which are the first
   * coarse pages), then the further coarse or the fine pages they list (fine: only the names
   * asked for). Latest events only when the report wants metadata.
   */
  async *forReport(owner: string, gens: readonly string[], kind: 'c' | 'f', names: ReadonlySet<string> | undefined, withLatest: boolean, maxTimeMS: number): AsyncGenerator<CellDocument> {
    const projection = withLatest ? {} : { l: 0 };
    const dirIds = gens.map((g) => cellId('d', g, owner));
    const more: string[] = [];
    for (let i = 0; i < dirIds.length; i += ID_CHUNK) {
      for (const dir of await this.collection.find({ _id: { $in: dirIds.slice(i, i + ID_CHUNK) } }, { projection, maxTimeMS }).toArray()) {
        if (kind === 'c') {
          yield dir;
          more.push(...coarsePageIds(dir));
        } else more.push(...finePageIds(dir, names));
      }
    }
    for (let i = 0; i < more.length; i += ID_CHUNK) {
      yield* await this.collection.find({ _id: { $in: more.slice(i, i + ID_CHUNK) } }, { projection, maxTimeMS }).toArray();
    }
  }
}

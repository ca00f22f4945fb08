import type { Collection, Db } from 'mongodb';
import { SIDE_FIELDS, type SideField } from './aggregates/aggregate';
import { coarsePageIds, fineListIds, fineListOf, finePageIds, cellId, type CellDocument } from './cell-document';
import { CellManifests, GenerationGoneError, type ManifestDocument, type ManifestLimits } from './cell-manifests';

export { GenerationGoneError } from './cell-manifests';

const CELLS_COLLECTION = 'rollup_cells';

const ID_CHUNK = 1000;
const INSERT_CHUNK = 200;

/**
 * The packed cells of every unit generation (see cell-document.ts). Every read is by `_id`
 * (`$in`): those are hash lookups on any server, while a secondary-index or range query is a
 * collection scan on the MongoDB stand-in. A generation's manifest (cell-manifests.ts) lists its
 * documents, so merging and dropping a generation need no query by field either.
 */
export class CellStore {
  readonly collection: Collection<CellDocument>;
  private readonly manifests: CellManifests;

  constructor(db: Db, limits?: ManifestLimits) {
    this.collection = db.collection<CellDocument>(CELLS_COLLECTION);
    this.manifests = new CellManifests(db.collection<ManifestDocument>(`${CELLS_COLLECTION}_manifests`), limits);
  }

  /** Writes a generation: its manifest first, then its documents. */
  async insert(g: string, docs: readonly CellDocument[]): Promise<void> {
    await this.manifests.write(
      g,
      docs.map((d) => d._id),
    );
    for (let i = 0; i < docs.length; i += INSERT_CHUNK) {
      await this.collection.insertMany(
        docs.slice(i, i + INSERT_CHUNK).map((d) => ({ ...d })),
        { ordered: false },
      );
    }
  }

  /**
   * Drops generations no mark points at any more, by their manifests. A generation whose manifest
   * is gone too (left so by a defect of an earlier version) is found by its field instead: a
   * scan, so only `withoutManifest` generations known to need it are looked for that way.
   */
  async dropGenerations(gens: readonly string[], withoutManifest: readonly string[] = []): Promise<void> {
    if (gens.length > 0) {
      const { ids } = await this.manifests.read(gens);
      for (let i = 0; i < ids.length; i += ID_CHUNK)
        await this.collection.deleteMany({ _id: { $in: ids.slice(i, i + ID_CHUNK) } });
      await this.manifests.drop(gens);
    }
    for (const g of withoutManifest) await this.collection.deleteMany({ g });
  }

  /** Of these generations, those whose manifest is missing (a unit pointing at one must not be used). */
  missingGenerations(gens: readonly string[], maxTimeMS?: number): Promise<string[]> {
    return this.manifests.missing(gens, maxTimeMS);
  }

  /** Every generation that has a manifest (for the orphan sweep). */
  manifestedGenerations(): Promise<string[]> {
    return this.manifests.generations();
  }

  /** The fine pages of these generations, owner by owner (for merging into a parent unit: one owner in memory at a time). */
  async *finePagesByOwner(gens: readonly string[]): AsyncGenerator<CellDocument> {
    const { ids: all, incomplete } = await this.manifests.read(gens);
    if (incomplete.length > 0) throw new GenerationGoneError(incomplete);
    const byOwner = new Map<string, string[]>();
    for (const id of all) {
      const [kind, , owner] = JSON.parse(id) as [string, string, string];
      if (kind !== 'f') continue;
      const list = byOwner.get(owner);
      if (list) list.push(id);
      else byOwner.set(owner, [id]);
    }
    for (const ids of byOwner.values()) {
      for (let i = 0; i < ids.length; i += ID_CHUNK)
        yield* expectAll(
          ids.slice(i, i + ID_CHUNK),
          await this.collection.find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }).toArray(),
        );
    }
  }

  /**
   * One owner's cells of these generations for a report: the directories (which are the first
   * coarse pages), then the further coarse or the fine pages they list (fine: only the names
   * asked for; an owner with very many names has them in list documents, read first). Latest
   * events only when the report wants metadata, visitor sketches only when it asks for uniques.
   */
  async *forReport(
    owner: string,
    gens: readonly string[],
    kind: 'c' | 'f',
    names: ReadonlySet<string> | undefined,
    sides: readonly SideField[],
    maxTimeMS: number,
  ): AsyncGenerator<CellDocument> {
    // side fields the report does not ask for stay on the server
    const projection = Object.fromEntries(SIDE_FIELDS.filter((f) => !sides.includes(f)).map((f) => [f, 0]));
    const find = (ids: string[]) => this.collection.find({ _id: { $in: ids } }, { projection, maxTimeMS }).toArray();
    const more: string[] = [];
    const lists: string[] = [];
    for (const dirIds of chunks(gens.map((g) => cellId('d', g, owner)))) {
      for (const dir of await find(dirIds)) {
        if (kind === 'c') {
          yield dir;
          more.push(...coarsePageIds(dir));
        } else if (dir.fx) lists.push(...fineListIds(dir));
        else more.push(...finePageIds(dir, names));
      }
    }
    // the documents a directory lists must exist: one that is missing makes its generation unusable
    for (const ids of chunks(lists))
      for (const list of expectAll(ids, await find(ids))) more.push(...finePageIds(fineListOf(list), names));
    for (const ids of chunks(more)) yield* expectAll(ids, await find(ids));
  }
}

/** The documents found for `ids`, which must all exist (GenerationGoneError naming the generations that lack some). */
function expectAll(ids: readonly string[], docs: CellDocument[]): CellDocument[] {
  if (docs.length === ids.length) return docs;
  const found = new Set(docs.map((d) => d._id));
  const gone = new Set(ids.filter((id) => !found.has(id)).map((id) => (JSON.parse(id) as string[])[1]!));
  throw new GenerationGoneError([...gone]);
}

function chunks(ids: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(ids.slice(i, i + ID_CHUNK));
  return out;
}

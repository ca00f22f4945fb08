import type { Collection, Db, Document } from 'mongodb';
import { CellManifests, GenerationGoneError, type ManifestDocument, type ManifestLimits } from './cell-manifests';
import { GenerationWriter } from './generation-writer';
import { PAGE_FORMAT, parsePageId, READ_FORMATS, type CellPageDocument } from './page-layout';

export { GenerationGoneError } from './cell-manifests';

const CELLS_COLLECTION = 'rollup_cells';

const ID_CHUNK = 100;
const INSERT_CHUNK = 200;

/**
 * The pages of every unit generation (page-layout.ts). Every read is by `_id` (`$in`, in chunks
 * of 100: the stand-in's cost per id grows with the list), hash lookups on any server, while a
 * secondary-index or range query is a collection scan on the MongoDB stand-in. A generation's
 * manifest (cell-manifests.ts) lists its pages, so merging and dropping a generation need no
 * query by field either.
 */
export class CellStore {
  readonly collection: Collection<CellPageDocument>;
  private readonly manifests: CellManifests;

  constructor(db: Db, limits?: ManifestLimits) {
    this.collection = db.collection<CellPageDocument>(CELLS_COLLECTION);
    this.manifests = new CellManifests(db.collection<ManifestDocument>(`${CELLS_COLLECTION}_manifests`), limits);
  }

  /** `behind`: each batch written while the caller makes the next (generation-writer.ts). */
  writer(g: string, behind = false): GenerationWriter {
    return new GenerationWriter(this, g, behind);
  }

  /** A whole generation at once (its manifest part, its pages, its head). */
  async insert(g: string, docs: readonly CellPageDocument[]): Promise<void> {
    const writer = this.writer(g);
    await writer.add(docs);
    await writer.finish();
  }

  /** Manifest parts for these pages after the `parts` written, then the pages; returns the parts written in all. */
  async writePages(g: string, parts: number, docs: readonly CellPageDocument[]): Promise<number> {
    const written = await this.manifests.writeParts(
      g,
      parts,
      docs.map((d) => d._id),
    );
    for (let i = 0; i < docs.length; i += INSERT_CHUNK)
      await this.collection.insertMany(
        docs.slice(i, i + INSERT_CHUNK).map((d) => ({ ...d })),
        { ordered: false },
      );
    return written;
  }

  finishGeneration(g: string, parts: number): Promise<void> {
    return this.manifests.writeHead(g, parts, PAGE_FORMAT);
  }

  /**
   * Drops generations no mark points at any more, by their manifests (a generation whose head
   * never came, by its parts). One whose manifest is gone too (left so by a defect of an earlier
   * version) is found by its field instead: a scan, so only `withoutManifest` generations known to
   * need it are looked for that way.
   */
  async dropGenerations(gens: readonly string[], withoutManifest: readonly string[] = []): Promise<void> {
    if (gens.length > 0) {
      const { ids } = await this.manifests.read(gens, true);
      for (let i = 0; i < ids.length; i += 1000)
        await this.collection.deleteMany({ _id: { $in: ids.slice(i, i + 1000) } });
      await this.manifests.drop(gens);
    }
    for (const g of withoutManifest) await this.collection.deleteMany({ g });
  }

  /**
   * Of these generations, those a report must not use: `missing` without a manifest head (never
   * completed, dropped, or lost: broken if a mark points at one), `legacy` of a page format this
   * release does not read (written by an earlier release: the builder rebuilds or converts them).
   */
  async unusableGenerations(
    gens: readonly string[],
    maxTimeMS?: number,
  ): Promise<{ missing: string[]; legacy: string[] }> {
    const formats = await this.generationFormats(gens, maxTimeMS);
    const unique = [...new Set(gens)];
    return {
      missing: unique.filter((g) => !formats.has(g)),
      legacy: unique.filter((g) => formats.has(g) && !READ_FORMATS.includes(formats.get(g)!)),
    };
  }

  /** The page format of each generation whose manifest head exists. */
  generationFormats(gens: readonly string[], maxTimeMS?: number): Promise<Map<string, number>> {
    return this.manifests.formats(gens, maxTimeMS);
  }

  /** Every generation that has a manifest (for the orphan sweep). */
  manifestedGenerations(): Promise<string[]> {
    return this.manifests.generations();
  }

  /**
   * The pages of these generations, owner by owner (for merging into a parent unit: one owner in
   * memory at a time). GenerationGoneError when a generation is incomplete or of another format.
   * `families`: only the pages of these (a zone day is made of its hours' totals alone).
   */
  async *pagesByOwner(
    gens: readonly string[],
    families?: readonly string[],
  ): AsyncGenerator<{ owner: string; pages: CellPageDocument[] }> {
    const { missing, legacy } = await this.unusableGenerations(gens);
    if (legacy.length > 0) throw new LegacyGenerationError(legacy);
    if (missing.length > 0) throw new GenerationGoneError(missing);
    const { ids: all, incomplete } = await this.manifests.read(gens);
    if (incomplete.length > 0) throw new GenerationGoneError(incomplete);
    const byOwner = new Map<string, string[]>();
    for (const id of all) {
      const page = parsePageId(id);
      if (page === undefined || (families !== undefined && !families.includes(page.family))) continue;
      const owner = page.owner;
      const list = byOwner.get(owner);
      if (list) list.push(id);
      else byOwner.set(owner, [id]);
    }
    for (const [owner, ids] of [...byOwner].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      const pages: CellPageDocument[] = [];
      for (let i = 0; i < ids.length; i += ID_CHUNK)
        pages.push(...expectAll(ids.slice(i, i + ID_CHUNK), await this.byIds(ids.slice(i, i + ID_CHUNK))));
      yield { owner, pages };
    }
  }

  /**
   * Pages by id with only these fields (a report's columns), and at the same time, of `gens`,
   * those a report must not use (`unusableGenerations`; no `gens`: no query for it): the first
   * pages of a report's planned units come with the check of their generations. A listed id that
   * is missing is not an error here (a first page of an owner without events in the unit is never
   * written).
   */
  async usablePages(
    ids: readonly string[],
    fields: readonly string[],
    gens: readonly string[],
    maxTimeMS?: number,
  ): Promise<{ docs: CellPageDocument[]; missing: string[]; legacy: string[] }> {
    const projection = Object.fromEntries(['g', 'o', 'f', 'p', 'x', 'over', 'k', ...fields].map((f) => [f, 1]));
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) chunks.push(ids.slice(i, i + ID_CHUNK));
    const [unusable, ...found] = await Promise.all([
      this.unusableGenerations(gens, maxTimeMS),
      ...chunks.map((chunk) => this.collection.find({ _id: { $in: chunk } }, { projection, maxTimeMS }).toArray()),
    ]);
    return { docs: found.flat(), ...unusable };
  }

  /** Which of these page ids exist (their `_id` alone is read). */
  async existing(ids: readonly string[], maxTimeMS?: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const docs = await this.collection
        .find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }, { projection: { _id: 1 }, maxTimeMS })
        .toArray();
      for (const d of docs) out.push(d._id);
    }
    return out;
  }

  /** A generation's documents owner by owner, as stored (the legacy migration reads first-format cells so). */
  async *documentsByOwner(g: string): AsyncGenerator<{ owner: string; docs: Document[] }> {
    const { ids, incomplete } = await this.manifests.read([g]);
    if (incomplete.length > 0) throw new GenerationGoneError(incomplete);
    const byOwner = new Map<string, string[]>();
    for (const id of ids) {
      const owner = (JSON.parse(id) as unknown[])[2];
      if (typeof owner !== 'string') continue;
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), id]);
    }
    const raw = this.collection as unknown as Collection<{ _id: string } & Document>;
    for (const [owner, list] of byOwner) {
      const docs: Document[] = [];
      for (let i = 0; i < list.length; i += ID_CHUNK)
        docs.push(...(await raw.find({ _id: { $in: list.slice(i, i + ID_CHUNK) } }).toArray()));
      yield { owner, docs };
    }
  }

  private byIds(ids: readonly string[]): Promise<CellPageDocument[]> {
    return this.collection.find({ _id: { $in: [...ids] } }).toArray();
  }
}

/** Generations of the first page format: waiting for the builder to rebuild or convert them (legacy-migration.ts). */
export class LegacyGenerationError extends Error {
  constructor(readonly generations: readonly string[]) {
    super(`cell generations of an earlier format, not converted yet: ${generations.slice(0, 3).join(', ')}`);
  }
}

/** The documents found for `ids`, which must all exist (GenerationGoneError naming the generations that lack some). */
function expectAll(ids: readonly string[], docs: CellPageDocument[]): CellPageDocument[] {
  if (docs.length === ids.length) return docs;
  const found = new Set(docs.map((d) => d._id));
  const gone = new Set(ids.filter((id) => !found.has(id)).map((id) => parsePageId(id)?.g ?? id));
  throw new GenerationGoneError([...gone]);
}

import { BSON, type Collection } from 'mongodb';

/**
 * The ids of one generation's pages, written before them so a dead build can be swept and a
 * merge finds them without a query by field. A generation is written owner by owner, so its
 * manifest comes in parts (`_id` `<g>#<i>`, i >= 1, generation ids never hold a `#`), each written
 * before its pages; the head (`_id` = the generation) is written last, with the number of
 * documents in all (`parts`, the head included) and the page format (`v`): a generation is
 * complete exactly when its head exists.
 */
export interface ManifestDocument {
  _id: string;
  /** The generation (also on the head, whose `_id` it is). */
  g: string;
  ids: string[];
  /** Head only: manifest documents in all, the head included. */
  parts?: number;
  /** Head only: the format of the pages (page-layout.ts PAGE_FORMAT); absent on generations of the first format. */
  v?: number;
}

export interface ManifestLimits {
  /** Ids per manifest document. */
  maxIds: number;
  /** Encoded bytes per manifest document (MongoDB refuses documents over 16 MB). */
  maxBytes: number;
}

const DEFAULT_MANIFEST_LIMITS: ManifestLimits = { maxIds: 50_000, maxBytes: 4_000_000 };

const ID_CHUNK = 1000;

/**
 * A generation being read lacks documents its manifest (or a page) promised: dropped meanwhile
 * because its unit was rebuilt (the reader plans again), or broken (a mark pointing at it is
 * reset, see broken-units.ts). `generations` are the ones found incomplete.
 */
export class GenerationGoneError extends Error {
  constructor(readonly generations: readonly string[] = []) {
    super(`a cell generation was dropped while it was read (${generations.slice(0, 3).join(', ')})`);
  }
}

export function manifestPartId(g: string, part: number): string {
  return part === 0 ? g : `${g}#${part}`;
}

/** The generation a manifest part id belongs to (`<g>#<i>`). */
function generationOfPart(id: string): string {
  const hash = id.lastIndexOf('#');
  return hash < 0 ? id : id.slice(0, hash);
}

/** Ids cut into manifest parts of at most `maxIds` ids and `maxBytes` encoded bytes each. */
export function splitIds(
  g: string,
  ids: readonly string[],
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
): string[][] {
  const base = BSON.calculateObjectSize({ _id: manifestPartId(g, 1_000_000), g, ids: [] });
  const parts: string[][] = [[]];
  let bytes = base;
  for (const id of ids) {
    let last = parts[parts.length - 1]!;
    if (last.length > 0 && (last.length >= limits.maxIds || bytes + elementBytes(last.length, id) > limits.maxBytes)) {
      parts.push((last = []));
      bytes = base;
    }
    bytes += elementBytes(last.length, id);
    last.push(id);
  }
  return parts.filter((p) => p.length > 0);
}

/** A string in a BSON array: type byte, index as key (text and terminator), length, UTF-8 text and terminator. */
function elementBytes(index: number, id: string): number {
  return 7 + String(index).length + Buffer.byteLength(id);
}

/** Reads and drops whole manifests (every part) by `_id` only, but for a generation whose head never came. */
export class CellManifests {
  constructor(
    readonly collection: Collection<ManifestDocument>,
    private readonly limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
  ) {}

  /** Writes the parts for these ids after the `written` ones; returns the parts written in all. */
  async writeParts(g: string, written: number, ids: readonly string[]): Promise<number> {
    const parts = splitIds(g, ids, this.limits).map((list, i) => ({
      _id: manifestPartId(g, written + i + 1),
      g,
      ids: list,
    }));
    if (parts.length > 0) await this.collection.insertMany(parts, { ordered: false });
    return written + parts.length;
  }

  async writeHead(g: string, parts: number, format: number): Promise<void> {
    await this.collection.insertOne({ _id: g, g, ids: [], parts: parts + 1, v: format });
  }

  /**
   * The documents of these generations; `incomplete` names those whose head or a part is
   * missing. With `headless`, a generation without a head (a build that died) is looked up by
   * its field instead (a scan: only the sweeps ask for it).
   */
  async read(gens: readonly string[], headless = false): Promise<{ ids: string[]; incomplete: string[] }> {
    const unique = [...new Set(gens)];
    const heads = await this.byIds(unique);
    const partIds = partIdsOf(heads);
    const parts = await this.byIds(partIds);
    const found = new Set([...heads, ...parts].map((m) => m._id));
    const incomplete = new Set(unique.filter((g) => !found.has(g)));
    for (const id of partIds) if (!found.has(id)) incomplete.add(generationOfPart(id));
    const ids = [...heads, ...parts].flatMap((m) => m.ids);
    if (headless) {
      const missing = unique.filter((g) => !found.has(g));
      for (let i = 0; i < missing.length; i += ID_CHUNK) {
        for (const part of await this.collection.find({ g: { $in: missing.slice(i, i + ID_CHUNK) } }).toArray())
          ids.push(...part.ids);
      }
    }
    return { ids, incomplete: [...incomplete] };
  }

  /** The heads of these generations: their page format (undefined: not complete, or gone). */
  async formats(gens: readonly string[], maxTimeMS?: number): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const unique = [...new Set(gens)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const docs = await this.collection
        .find({ _id: { $in: unique.slice(i, i + ID_CHUNK) } }, { projection: { v: 1 }, maxTimeMS })
        .toArray();
      for (const d of docs) out.set(d._id, d.v ?? 1);
    }
    return out;
  }

  /** Every generation with a manifest document (head or part): what the orphan sweep looks at. */
  async generations(): Promise<string[]> {
    const docs = await this.collection.find({}, { projection: { g: 1 } }).toArray();
    return [...new Set(docs.map((d) => d.g))];
  }

  /** Removes every part, the heads last (a drop that dies midway leaves the heads for the next). */
  async drop(gens: readonly string[]): Promise<void> {
    const unique = [...new Set(gens)];
    const heads = await this.byIds(unique);
    const partIds = partIdsOf(heads);
    for (let i = 0; i < partIds.length; i += ID_CHUNK)
      await this.collection.deleteMany({ _id: { $in: partIds.slice(i, i + ID_CHUNK) } });
    // a generation without a head (its build died): its parts by their field
    const headless = unique.filter((g) => !heads.some((h) => h._id === g));
    for (let i = 0; i < headless.length; i += ID_CHUNK)
      await this.collection.deleteMany({ g: { $in: headless.slice(i, i + ID_CHUNK) } });
    for (let i = 0; i < unique.length; i += ID_CHUNK)
      await this.collection.deleteMany({ _id: { $in: unique.slice(i, i + ID_CHUNK) } });
  }

  private async byIds(ids: readonly string[]): Promise<ManifestDocument[]> {
    const out: ManifestDocument[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK)
      out.push(...(await this.collection.find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }).toArray()));
    return out;
  }
}

function partIdsOf(heads: readonly ManifestDocument[]): string[] {
  return heads.flatMap((h) =>
    Array.from({ length: Math.max(0, (h.parts ?? 1) - 1) }, (_, i) => manifestPartId(h._id, i + 1)),
  );
}

import { BSON, type Collection } from 'mongodb';

/**
 * The ids of one generation's cell documents, written before them so a dead build can be swept
 * and a merge finds them without a query by field. An hour's generation holds every owner's
 * documents, so the list is split: the head (`_id` = the generation) holds the first part and
 * how many parts there are, part i > 0 has `_id` `<g>#<i>` (generation ids never hold a `#`).
 */
export interface ManifestDocument {
  _id: string;
  /** The generation (also on the head, whose `_id` it is). */
  g: string;
  ids: string[];
  /** Head only: parts in all, the head included (absent on manifests written before parts existed: 1). */
  parts?: number;
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
 * A generation being read lacks documents its manifest (or a page list) promised: dropped
 * meanwhile because its unit was rebuilt (the reader plans again), or broken (a mark pointing at
 * it is reset, see broken-units.ts). `generations` are the ones found incomplete.
 */
export class GenerationGoneError extends Error {
  constructor(readonly generations: readonly string[] = []) {
    super(`a cell generation was dropped while it was read (${generations.slice(0, 3).join(', ')})`);
  }
}

export function manifestPartId(g: string, part: number): string {
  return part === 0 ? g : `${g}#${part}`;
}

/** One generation's manifest documents, head first. */
export function splitManifest(
  g: string,
  ids: readonly string[],
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
): ManifestDocument[] {
  // the fields around the ids, on the largest part id
  const base = BSON.calculateObjectSize({ _id: manifestPartId(g, ids.length), g, ids: [], parts: ids.length });
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
  return parts.map((list, i) =>
    i === 0 ? { _id: g, g, ids: list, parts: parts.length } : { _id: manifestPartId(g, i), g, ids: list },
  );
}

/** The generation a manifest part id belongs to (`<g>#<i>`). */
function generationOfPart(id: string): string {
  const hash = id.lastIndexOf('#');
  return hash < 0 ? id : id.slice(0, hash);
}

function partIdsOf(heads: readonly ManifestDocument[]): string[] {
  return heads.flatMap((h) =>
    Array.from({ length: Math.max(0, (h.parts ?? 1) - 1) }, (_, i) => manifestPartId(h._id, i + 1)),
  );
}

/** A string in a BSON array: type byte, index as key (text and terminator), length, UTF-8 text and terminator. */
function elementBytes(index: number, id: string): number {
  return 7 + String(index).length + Buffer.byteLength(id);
}

/** Reads and drops whole manifests (every part) by `_id` only. */
export class CellManifests {
  constructor(
    readonly collection: Collection<ManifestDocument>,
    private readonly limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
  ) {}

  /** The head first, so whoever finds any part of it (a sweep) finds them all. */
  async write(g: string, ids: readonly string[]): Promise<void> {
    const [head, ...rest] = splitManifest(g, ids, this.limits);
    await this.collection.insertOne(head!);
    if (rest.length > 0) await this.collection.insertMany(rest, { ordered: false });
  }

  /** The documents of these generations; `incomplete` names those whose head or a part is missing. */
  async read(gens: readonly string[]): Promise<{ ids: string[]; incomplete: string[] }> {
    const unique = [...new Set(gens)];
    const heads = await this.byIds(unique);
    const partIds = partIdsOf(heads);
    const parts = await this.byIds(partIds);
    const found = new Set([...heads, ...parts].map((m) => m._id));
    const incomplete = new Set(unique.filter((g) => !found.has(g)));
    for (const id of partIds) if (!found.has(id)) incomplete.add(generationOfPart(id));
    return { ids: [...heads, ...parts].flatMap((m) => m.ids), incomplete: [...incomplete] };
  }

  /** Which of these generations have no manifest head (never written, dropped, or lost). */
  async missing(gens: readonly string[], maxTimeMS?: number): Promise<string[]> {
    const unique = [...new Set(gens)];
    const found = new Set<string>();
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const docs = await this.collection
        .find({ _id: { $in: unique.slice(i, i + ID_CHUNK) } }, { projection: { _id: 1 }, maxTimeMS })
        .toArray();
      for (const d of docs) found.add(d._id);
    }
    return unique.filter((g) => !found.has(g));
  }

  /** Every generation with a manifest document (head or part): what the orphan sweep looks at. */
  async generations(): Promise<string[]> {
    const docs = await this.collection.find({}, { projection: { g: 1 } }).toArray();
    return [...new Set(docs.map((d) => d.g))];
  }

  /** Removes every part, the heads last (a drop that dies midway leaves the heads for the next). */
  async drop(gens: readonly string[]): Promise<void> {
    const heads = await this.byIds([...new Set(gens)]);
    const partIds = partIdsOf(heads);
    for (let i = 0; i < partIds.length; i += ID_CHUNK)
      await this.collection.deleteMany({ _id: { $in: partIds.slice(i, i + ID_CHUNK) } });
    for (let i = 0; i < gens.length; i += ID_CHUNK)
      await this.collection.deleteMany({ _id: { $in: gens.slice(i, i + ID_CHUNK) } });
  }

  private async byIds(ids: readonly string[]): Promise<ManifestDocument[]> {
    const out: ManifestDocument[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK)
      out.push(...(await this.collection.find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }).toArray()));
    return out;
  }
}

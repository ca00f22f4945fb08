import { laterOf, type DeviceCounts, type DeviceLatest, type FineCell } from './cell-table';

/** A fine entry: content_id, url, per-device counts. */
export type FineEntry = [contentId: string, url: string, counts: DeviceCounts];
/** A coarse entry: the name's totals over every content_id and url. */
export type CoarseEntry = [name: string, counts: DeviceCounts];

/**
 * Cells of one unit generation for one owner (collection `rollup_cells`), packed many entries to a
 * document so a report reads a few documents per unit instead of one per cell. Every document is
 * found by its `_id` (computed, see cellId), never by a secondary index: the owner's directory
 * (`k: 'c'`, page 0 of the coarse entries, one per name, plus the fine pages that exist), further
 * coarse pages, and fine pages (`k: 'f'`, one name's entries per content_id/url). Entries are
 * arrays, not objects, so no stored value ever becomes a field name.
 */
export interface CellDocument {
  _id: string;
  o: string;
  /** Generation id `<unitId>@<gen>`: reports read only the generation their unit's mark points to. */
  g: string;
  k: 'f' | 'c';
  /** The event name of a fine document. */
  n?: string;
  /** Page number within (g, o, k, n). */
  p: number;
  /**
   * The entries (FineEntry[] or CoarseEntry[]) as JSON text: one string is copied, not decoded
   * field by field, on both ends (several times faster than nested BSON arrays on the stand-in).
   */
  e: string;
  /**
   * The latest events of the entries as JSON text, `l[i]` for `e[i]` (DeviceLatest[]): a field of
   * its own so that reports without metadata (most of them) leave it on the server (projection).
   */
  l: string;
  /** Directory only: coarse pages in all, and the fine pages per name. */
  cp?: number;
  fp?: Array<[name: string, pages: number]>;
}

/** `_id` of a cell document: JSON, so no name or owner can make two ids collide. */
export function cellId(kind: 'd' | 'c' | 'f', g: string, owner: string, name = '', page = 0): string {
  return JSON.stringify([kind, g, owner, name, page]);
}

/** The ids of every fine page of a directory (optionally only some names). */
export function finePageIds(dir: CellDocument, names?: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (const [name, pages] of dir.fp ?? []) {
    if (names && !names.has(name)) continue;
    for (let p = 0; p < pages; p++) ids.push(cellId('f', dir.g, dir.o, name, p));
  }
  return ids;
}

export function coarsePageIds(dir: CellDocument): string[] {
  return Array.from({ length: Math.max(0, (dir.cp ?? 1) - 1) }, (_, i) => cellId('c', dir.g, dir.o, '', i + 1));
}

export interface PackLimits {
  /** Entries per document. */
  maxEntries: number;
  /** Rough bytes per document (BSON documents are capped at 16 MB; metadata makes entries large). */
  maxBytes: number;
}

export const DEFAULT_PACK_LIMITS: PackLimits = { maxEntries: 1000, maxBytes: 4_000_000 };

/** Packs one owner's cells (sorted by name, content_id, url) into fine and coarse documents. */
export function packCells(owner: string, g: string, cells: readonly FineCell[], limits: PackLimits = DEFAULT_PACK_LIMITS): CellDocument[] {
  const docs: CellDocument[] = [];
  const pagesOf = new Map<string, number>();
  const coarse = new Map<string, Coarse>();
  let page: FineEntry[] = [];
  let latest: DeviceLatest[] = [];
  let bytes = 0;
  let name: string | undefined;
  let pageNo = 0;
  const flush = () => {
    if (page.length > 0 && name !== undefined) {
      docs.push({ _id: cellId('f', g, owner, name, pageNo), o: owner, g, k: 'f', n: name, p: pageNo, e: JSON.stringify(page), l: JSON.stringify(latest) });
      pagesOf.set(name, ++pageNo);
    }
    page = [];
    latest = [];
    bytes = 0;
  };
  for (const cell of cells) {
    if (cell.name !== name) {
      flush();
      name = cell.name;
      pageNo = 0;
    }
    const size = entryBytes(cell);
    if (page.length >= limits.maxEntries || (page.length > 0 && bytes + size > limits.maxBytes)) flush();
    page.push([cell.contentId, cell.url, cell.counts]);
    latest.push(cell.latest);
    bytes += size;
    addCoarse(coarse, cell);
  }
  flush();
  const coarsePages: Array<{ e: CoarseEntry[]; l: DeviceLatest[] }> = [{ e: [], l: [] }];
  let coarseBytes = 0;
  for (const entry of coarse.values()) {
    const size = 64 + entry.name.length + latestBytes(entry.latest);
    let last = coarsePages[coarsePages.length - 1]!;
    if (last.e.length >= limits.maxEntries || (last.e.length > 0 && coarseBytes + size > limits.maxBytes)) {
      coarsePages.push((last = { e: [], l: [] }));
      coarseBytes = 0;
    }
    last.e.push([entry.name, entry.counts]);
    last.l.push(entry.latest);
    coarseBytes += size;
  }
  // the directory (coarse page 0) comes last: whoever finds it finds every page it lists
  const text = (page: { e: CoarseEntry[]; l: DeviceLatest[] }) => ({ e: JSON.stringify(page.e), l: JSON.stringify(page.l) });
  coarsePages.slice(1).forEach((page, i) => docs.push({ _id: cellId('c', g, owner, '', i + 1), o: owner, g, k: 'c', p: i + 1, ...text(page) }));
  docs.push({ _id: cellId('d', g, owner), o: owner, g, k: 'c', p: 0, ...text(coarsePages[0]!), cp: coarsePages.length, fp: [...pagesOf] });
  return docs;
}

interface Coarse {
  name: string;
  counts: DeviceCounts;
  latest: DeviceLatest;
}

function addCoarse(coarse: Map<string, Coarse>, cell: FineCell): void {
  const seen = coarse.get(cell.name);
  if (!seen) {
    coarse.set(cell.name, { name: cell.name, counts: [...cell.counts], latest: [...cell.latest] });
    return;
  }
  for (let d = 0; d < 3; d++) {
    seen.counts[d]! += cell.counts[d]!;
    seen.latest[d] = laterOf(seen.latest[d]!, cell.latest[d]!);
  }
}

function entryBytes(cell: FineCell): number {
  return 64 + cell.contentId.length + cell.url.length + latestBytes(cell.latest);
}

function latestBytes(latest: DeviceLatest): number {
  let bytes = 0;
  for (const l of latest) {
    if (!l) continue;
    bytes += 64;
    for (const [k, v] of Object.entries(l[2])) bytes += k.length + v.length + 8;
  }
  return bytes;
}

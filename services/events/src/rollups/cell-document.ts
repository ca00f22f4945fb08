import { laterOf, type DeviceCounts, type DeviceLatest, type FineCell } from './cell-table';

/** A fine entry: content_id, url, per-device counts. */
export type FineEntry = [contentId: string, url: string, counts: DeviceCounts];
/** A coarse entry: the name's totals over every content_id and url. */
export type CoarseEntry = [name: string, counts: DeviceCounts];

/**
 * Cells of one unit generation for one owner (collection `rollup_cells`), packed many entries to a
 * document so a report reads a few documents per unit instead of one per cell: `k: 'f'` (fine)
 * documents hold one name's entries per content_id/url, `k: 'c'` (coarse) documents one entry per
 * name. Arrays, not objects, so no stored value ever becomes a field name.
 */
export interface CellDocument {
  o: string;
  /** Generation id `<unitId>@<gen>`: reports read only the generation their unit's mark points to. */
  g: string;
  k: 'f' | 'c';
  /** The event name of a fine document. */
  n?: string;
  /** Page number within (g, o, k, n). */
  p: number;
  e: FineEntry[] | CoarseEntry[];
  /**
   * The latest events of the entries, `l[i]` for `e[i]`: a field of its own so that reports
   * without metadata (most of them) leave the bulk of the bytes on the server (projection).
   */
  l: DeviceLatest[];
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
  const coarse = new Map<string, Coarse>();
  let page: FineEntry[] = [];
  let latest: DeviceLatest[] = [];
  let bytes = 0;
  let name: string | undefined;
  let pageNo = 0;
  const flush = () => {
    if (page.length > 0 && name !== undefined) docs.push({ o: owner, g, k: 'f', n: name, p: pageNo++, e: page, l: latest });
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
  let coarsePage: CoarseEntry[] = [];
  let coarseLatest: DeviceLatest[] = [];
  let coarseBytes = 0;
  let coarseNo = 0;
  for (const entry of coarse.values()) {
    const size = 64 + entry.name.length + latestBytes(entry.latest);
    if (coarsePage.length >= limits.maxEntries || (coarsePage.length > 0 && coarseBytes + size > limits.maxBytes)) {
      docs.push({ o: owner, g, k: 'c', p: coarseNo++, e: coarsePage, l: coarseLatest });
      coarsePage = [];
      coarseLatest = [];
      coarseBytes = 0;
    }
    coarsePage.push([entry.name, entry.counts]);
    coarseLatest.push(entry.latest);
    coarseBytes += size;
  }
  if (coarsePage.length > 0) docs.push({ o: owner, g, k: 'c', p: coarseNo, e: coarsePage, l: coarseLatest });
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

import { BSON } from 'mongodb';
import { SIDE_FIELDS, type SideField } from './aggregates/aggregate';
import {
  copyCellValue,
  encodeEntry,
  encodeSides,
  mergeCellValue,
  type CellValue,
  type Sides,
} from './aggregates/cell-aggregates';
import type { FineCell } from './cell-table';
import { MAX_PAGE_BYTES, PageBytes } from './page-bytes';

/** A fine entry: content_id, url, then each `entry` aggregate's stored states (cell-aggregates.ts). */
export type FineEntry = [contentId: string, url: string, ...states: unknown[]];
/** A coarse entry: the name's totals over every content_id and url. */
export type CoarseEntry = [name: string, ...states: unknown[]];
/** How many keys lead a fine and a coarse entry, before the aggregates. */
export const FINE_KEYS = 2;
export const COARSE_KEYS = 1;

/**
 * Cells of one unit generation for one owner (collection `rollup_cells`), packed many entries to a
 * document so a report reads a few documents per unit instead of one per cell. Every document is
 * found by its `_id` (computed, see cellId), never by a secondary index: the owner's directory
 * (`k: 'c'`, page 0 of the coarse entries, one per name, plus the fine pages that exist), further
 * coarse pages, and fine pages (`k: 'f'`, one name's entries per content_id/url). An owner with so
 * many names that their list would crowd the directory gets list documents instead (`k: 'x'`, `e`
 * holds `[name, pages]` pairs). Entries are arrays, not objects, so no stored value ever becomes a
 * field name. Every document stays under the pack limit in encoded bytes (page-bytes.ts).
 */
export interface CellDocument {
  _id: string;
  o: string;
  /** Generation id `<unitId>@<gen>`: reports read only the generation their unit's mark points to. */
  g: string;
  k: 'f' | 'c' | 'x';
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
   * The `side` aggregate's states of the entries as JSON text, `l[i]` for `e[i]` (the latest
   * events): a field of its own so that reports without metadata (most of them)
   * leave it on the server (projection).
   */
  l: string;
  /**
   * The distinct-visitor sketches of the entries as JSON text, `u[i]` for `e[i]`, per device
   * (docs/sketch-format.md): read only by reports that ask for uniques. Absent on cells written
   * before visitors were recorded (empty sketches).
   */
  u?: string;
  /** The same sketches over all devices together, `v[i]` for `e[i]`: what a report without a device filter reads. */
  v?: string;
  /** The measures' counts and sums of the entries (`s[i]` for `e[i]`, per device): read only for sums and averages. */
  s?: string;
  /** The measures' quantile sketches of the entries (`q[i]` for `e[i]`, per device): read only for percentiles and shares. */
  q?: string;
  /** Directory only: coarse pages in all, and the fine pages per name (or the number of list documents holding them). */
  cp?: number;
  fp?: Array<[name: string, pages: number]>;
  fx?: number;
}

/** `_id` of a cell document: JSON, so no name or owner can make two ids collide. */
export function cellId(kind: 'd' | 'c' | 'f' | 'x', g: string, owner: string, name = '', page = 0): string {
  return JSON.stringify([kind, g, owner, name, page]);
}

/** The ids of every fine page of a directory or list document (optionally only some names). */
export function finePageIds(dir: Pick<CellDocument, 'g' | 'o' | 'fp'>, names?: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (const [name, pages] of dir.fp ?? []) {
    if (names && !names.has(name)) continue;
    for (let p = 0; p < pages; p++) ids.push(cellId('f', dir.g, dir.o, name, p));
  }
  return ids;
}

/** The list documents holding a directory's fine pages when they did not fit in it. */
export function fineListIds(dir: CellDocument): string[] {
  return Array.from({ length: dir.fx ?? 0 }, (_, i) => cellId('x', dir.g, dir.o, '', i));
}

/** A list document's part of the fine pages, in a directory's shape. */
export function fineListOf(list: CellDocument): Pick<CellDocument, 'g' | 'o' | 'fp'> {
  return { g: list.g, o: list.o, fp: JSON.parse(list.e) as Array<[string, number]> };
}

export function coarsePageIds(dir: CellDocument): string[] {
  return Array.from({ length: Math.max(0, (dir.cp ?? 1) - 1) }, (_, i) => cellId('c', dir.g, dir.o, '', i + 1));
}

export interface PackLimits {
  /** Entries per document. */
  maxEntries: number;
  /** Encoded (BSON) bytes per document, capped at MAX_PAGE_BYTES (MongoDB refuses documents over 16 MB). */
  maxBytes: number;
}

export const DEFAULT_PACK_LIMITS: PackLimits = { maxEntries: 1000, maxBytes: 4_000_000 };

/** Packs one owner's cells (sorted by name, content_id, url) into fine and coarse documents. */
export function packCells(
  owner: string,
  g: string,
  cells: readonly FineCell[],
  limits: PackLimits = DEFAULT_PACK_LIMITS,
): CellDocument[] {
  const maxBytes = Math.min(limits.maxBytes, MAX_PAGE_BYTES);
  const full = (page: PageBytes, e: string, sides?: Sides<string>) =>
    page.count >= limits.maxEntries || (page.count > 0 && page.sizeWith(e, sides) > maxBytes);
  const docs: CellDocument[] = [];
  const pagesOf = new Map<string, number>();
  const coarse = new Map<string, Coarse>();
  const fineHeader = (name: string, p: number) => ({
    _id: cellId('f', g, owner, name, p),
    o: owner,
    g,
    k: 'f' as const,
    n: name,
    p,
  });
  let name = '';
  let pageNo = 0;
  let page: PageBytes | undefined;
  const flush = () => {
    if (page && page.count > 0) {
      docs.push({ ...fineHeader(name, pageNo), ...page.text() });
      pagesOf.set(name, ++pageNo);
    }
    page = undefined;
  };
  for (const cell of cells) {
    if (cell.name !== name || !page) {
      flush();
      name = cell.name;
      pageNo = 0;
      page = new PageBytes(fineHeader(name, pageNo));
    }
    const e = encodeEntry([cell.contentId, cell.url], cell);
    const sides = encodeSides(cell);
    if (full(page, e, sides)) {
      flush();
      page = new PageBytes(fineHeader(name, pageNo));
    }
    page.add(e, sides);
    addCoarse(coarse, cell);
  }
  flush();
  // the directory (coarse page 0) carries the list of fine pages, so its size counts against its
  // page; when the list would take more than half of it, list documents of their own hold it
  let fine: Pick<CellDocument, 'fp' | 'fx'> = { fp: [...pagesOf] };
  if (BSON.calculateObjectSize(fine) > maxBytes / 2) {
    const listHeader = (p: number) => ({ _id: cellId('x', g, owner, '', p), o: owner, g, k: 'x' as const, p });
    const lists = [new PageBytes(listHeader(0))];
    for (const entry of pagesOf) {
      const e = JSON.stringify(entry);
      let last = lists[lists.length - 1]!;
      if (full(last, e)) lists.push((last = new PageBytes(listHeader(lists.length))));
      last.add(e);
    }
    lists.forEach((list, i) => docs.push({ ...listHeader(i), ...list.text() }));
    fine = { fx: lists.length };
  }
  const dirHeader = { _id: cellId('d', g, owner), o: owner, g, k: 'c' as const, p: 0, cp: 0, ...fine };
  const coarseHeader = (p: number) => ({ _id: cellId('c', g, owner, '', p), o: owner, g, k: 'c' as const, p });
  const coarsePages = [new PageBytes(dirHeader)];
  for (const entry of coarse.values()) {
    const e = encodeEntry([entry.name], entry);
    const sides = encodeSides(entry);
    let last = coarsePages[coarsePages.length - 1]!;
    if (full(last, e, sides)) coarsePages.push((last = new PageBytes(coarseHeader(coarsePages.length))));
    last.add(e, sides);
  }
  // the directory comes last: whoever finds it finds every page it lists
  coarsePages.slice(1).forEach((page, i) => docs.push({ ...coarseHeader(i + 1), ...page.text() }));
  docs.push({ ...dirHeader, ...coarsePages[0]!.text(), cp: coarsePages.length });
  return docs;
}

interface Coarse extends CellValue {
  name: string;
}

function addCoarse(coarse: Map<string, Coarse>, cell: FineCell): void {
  const seen = coarse.get(cell.name);
  if (!seen) {
    coarse.set(cell.name, { name: cell.name, ...copyCellValue(cell) });
    return;
  }
  mergeCellValue(seen, cell);
}

/** A stored page's side fields, parsed (a field left on the server by the projection, or never written: absent). */
export function parseSides(doc: Partial<Record<SideField, string>>): Sides<unknown[]> {
  const sides: Sides<unknown[]> = {};
  for (const field of SIDE_FIELDS) {
    const text = doc[field];
    if (text !== undefined) sides[field] = JSON.parse(text) as unknown[];
  }
  return sides;
}

/** Entry `i`'s item of each parsed side field. */
export function itemsAt(sides: Sides<unknown[]>, i: number): Sides<unknown> {
  const items: Sides<unknown> = {};
  for (const field of SIDE_FIELDS) if (sides[field]) items[field] = sides[field][i];
  return items;
}

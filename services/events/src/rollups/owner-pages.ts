import type { DistinctSketch } from '../sketches/distinct-sketch';
import { visitorIndexOf, type VisitorIndex } from '../sketches/visitor-dictionary';
import type { FamilyTable } from './cell-table';
import { overflowPage, writePages, type CellEntry } from './page-writer';
import { MAX_PAGE_BYTES, VISITORS_FAMILY, type CellPageDocument } from './page-layout';

/**
 * One owner's pages of every family in a unit (a family past its cap: its marked first page
 * alone), its exact visitor sets written as indexes into the owner's visitor dictionary of the
 * unit, which the first totals page stores. Without a totals page to hold it (its family past
 * the cap), the sets keep their hashes.
 */
export function ownerPages(
  g: string,
  owner: string,
  tables: ReadonlyMap<string, FamilyTable>,
  maxBytes = MAX_PAGE_BYTES,
): CellPageDocument[] {
  const entries = new Map<string, CellEntry[]>();
  for (const [id, table] of tables) if (!table.over && table.size > 0) entries.set(id, table.sorted());
  const visitors = entries.has(VISITORS_FAMILY) ? visitorsOf(entries.values()) : undefined;
  const docs: CellPageDocument[] = [];
  for (const [id, table] of tables) {
    if (table.over) docs.push(overflowPage(g, owner, table.family));
    else if (table.size > 0)
      docs.push(...writePages(g, owner, table.family, entries.get(id)!, maxBytes, undefined, visitors));
  }
  return docs;
}

/** Every visitor an exact visitor set of these entries lists, on any device. */
function visitorsOf(families: Iterable<readonly CellEntry[]>): VisitorIndex | undefined {
  const lists: Array<readonly number[]> = [];
  for (const entries of families)
    for (const entry of entries)
      for (const state of entry.value.uniques as readonly DistinctSketch[])
        if (state.kind === 'exact' && state.hashes.length > 0) lists.push(state.hashes);
  return visitorIndexOf(lists);
}

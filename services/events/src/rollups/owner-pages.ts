import { visitorIndexOf, type VisitorIndex } from '../sketches/visitor-dictionary';
import type { FamilyTable } from './cell-table';
import { overflowPage, writePages } from './page-writer';
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
  const visitors = visitorsOf(tables);
  const docs: CellPageDocument[] = [];
  for (const table of tables.values()) {
    if (table.over) docs.push(overflowPage(g, owner, table.family));
    else if (table.size > 0)
      docs.push(...writePages(g, owner, table.family, table.sorted(), maxBytes, undefined, visitors));
  }
  return docs;
}

/**
 * Every visitor an exact visitor set of these tables lists, on any device, read from the held
 * states (no entry's cell made for it: the page writer makes each once); none without a totals
 * table to store them.
 */
function visitorsOf(tables: ReadonlyMap<string, FamilyTable>): VisitorIndex | undefined {
  const totals = tables.get(VISITORS_FAMILY);
  if (!totals || totals.over || totals.size === 0) return undefined;
  const singles: number[] = [];
  const lists: Array<ArrayLike<number>> = [singles];
  for (const table of tables.values()) if (!table.over) table.exactVisitors(singles, lists);
  return visitorIndexOf(lists);
}

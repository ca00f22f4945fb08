import { StoredFormatError } from '../metrics/byte-codec';
import { FamilyTable } from './cell-table';
import { FAMILIES } from './families';
import { forEachStoredEntry, visitorDictionary } from './page-reader';
import type { CellPageDocument } from './page-layout';

/**
 * One owner's pages of a format-3, -4 or -5 generation (page-layout.ts READ_FORMATS) as this
 * format's family tables (at most `maxCells` entries each, as any build): the same families and
 * entries, read as stored (the reader reads format 3's visitor samples with their hashes, formats
 * 3 and 4's visitor sets with theirs, and format 5's through its visitor dictionary) to be written
 * again in this format.
 */
export function readableFormatTables(pages: readonly CellPageDocument[], maxCells: number): Map<string, FamilyTable> {
  const tables = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, maxCells)]));
  let visitors: Float64Array | undefined;
  for (const page of pages) visitors ??= visitorDictionary(page);
  for (const page of pages) {
    const table = tables.get(page.f);
    if (!table) throw new StoredFormatError(`a page of an unknown family: ${JSON.stringify(page.f)}`);
    if (page.over) table.overflow();
    else forEachStoredEntry(page, (name, keys, value) => table.add(name, keys, value), visitors);
  }
  return tables;
}

import { StoredFormatError } from '../metrics/byte-codec';
import { FamilyTable } from './cell-table';
import { FAMILIES, FORMAT_2_FAMILIES, type Family } from './families';
import { forEachStoredEntry } from './page-reader';
import type { CellPageDocument } from './page-layout';

/**
 * The family of format-2 pages each family of this format is projected from: the one with the
 * fewest dimensions that holds all of its own (each family holds every event once, so any such
 * family is a whole projection). The attribution family `c` comes from the retired `a`, whose
 * `utm_content` and `utm_term` it drops, merging the entries that differed only by them.
 */
function sourceOf(family: Family): Family {
  const sources = FORMAT_2_FAMILIES.filter((f) => family.dimensions.every((d) => f.dimensions.includes(d)));
  return sources.reduce((best, f) => (f.dimensions.length < best.dimensions.length ? f : best));
}

const SOURCES = new Map(FAMILIES.map((family) => [family.id, sourceOf(family)]));

/**
 * One owner's pages of a format-2 generation as this format's family tables (at most `maxCells`
 * entries each, as any build). A page of a family format 2 did not have is damage.
 */
export function format2Tables(pages: readonly CellPageDocument[], maxCells: number): Map<string, FamilyTable> {
  const tables = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, maxCells)]));
  for (const page of pages) {
    const from = FORMAT_2_FAMILIES.find((f) => f.id === page.f);
    if (!from) throw new StoredFormatError(`a format-2 page of an unknown family: ${JSON.stringify(page.f)}`);
    for (const family of FAMILIES) {
      if (SOURCES.get(family.id) !== from) continue;
      const table = tables.get(family.id)!;
      // an owner over the cap in the source family has no entries there: over in its projection too
      if (page.over) {
        table.overflow();
        continue;
      }
      const at = family.dimensions.map((d) => from.dimensions.indexOf(d));
      forEachStoredEntry(page, (name, keys, value) =>
        table.add(
          name,
          at.map((i) => keys[i]!),
          value,
        ),
      );
    }
  }
  return tables;
}

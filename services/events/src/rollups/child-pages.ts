import type { FamilyTable } from './cell-table';
import { checkPageFields, decodeOrDamaged, type DamagedPage } from './damaged-pages';
import { forEachStoredEntry, visitorDictionary } from './page-reader';
import type { CellPageDocument } from './page-layout';
import type { RollupMarks } from './rollup-marks';
import { isBuilt, type UnitMark } from './unit-mark';

/** The children a parent is merged from: their current generations, and the owners any of them lacks. */
export interface CurrentChildren {
  gens: string[];
  /** Owners listed lost on a child: left out of the parent too, which lists them in its turn. */
  lost: Set<string>;
}

/** The current generations of these units, or undefined when one of them is not built for its marks. */
export async function currentChildren(
  marks: Pick<RollupMarks, 'byIds'>,
  ids: readonly string[],
): Promise<CurrentChildren | undefined> {
  const docs = await marks.byIds(ids);
  const gens: string[] = [];
  const lost = new Set<string>();
  for (const mark of docs.sort((a, b) => a.start - b.start)) {
    if (!isBuilt(mark)) return undefined;
    gens.push(mark.built!.generation);
    for (const owner of lostOwners(mark)) lost.add(owner);
  }
  return { gens, lost };
}

/** The owners a built mark lists as lost, when the list is one (anything else on a mark is ignored). */
function lostOwners(mark: UnitMark): string[] {
  const lost = mark.built?.lost;
  return Array.isArray(lost) ? lost.filter((o): o is string => typeof o === 'string') : [];
}

/**
 * One owner's pages of the children merged into its tables by family. Every page is decoded, so
 * that all of this owner's damaged pages are found at once; when any is, the tables hold part of
 * the owner and must not be written. Each child's visitor dictionary (on its first totals page)
 * is decoded first, once, for the child's pages whose visitor sets index into it.
 */
export function mergeChildPages(
  pages: readonly CellPageDocument[],
  byFamily: ReadonlyMap<string, FamilyTable>,
): DamagedPage[] {
  const damaged: DamagedPage[] = [];
  const visitors = new Map<string, Float64Array>();
  for (const page of pages) {
    const failed = decodeOrDamaged(page._id, () => {
      const dictionary = visitorDictionary(page);
      if (dictionary) visitors.set(page.g, dictionary);
    });
    if (failed) damaged.push(failed);
  }
  for (const page of pages) {
    const failed = decodeOrDamaged(page._id, () => {
      checkPageFields(page);
      const table = byFamily.get(page.f);
      if (!table) return;
      if (page.over) table.overflow();
      else forEachStoredEntry(page, (name, keys, value) => table.add(name, keys, value), visitors.get(page.g));
    });
    if (failed && !damaged.some((d) => d.g === failed.g && d.family === failed.family && d.page === failed.page))
      damaged.push(failed);
  }
  return damaged;
}

import type { Binary } from 'mongodb';

/**
 * One stored page of rollup cells (collection `rollup_cells`): the entries of one owner and one
 * family in one unit generation, keyed by event name and the family's dimensions, each with its
 * aggregates' states in binary columns (metrics/: one column per aggregate, a second one for the
 * per-device states of `foldedWithDevices` aggregates). Found by `_id` only (computed: pageId), so
 * a report reads the first page of every unit it plans with in one query, and only the columns
 * it asks for (projection). An owner's family larger than one page continues on pages 1..x-1.
 */
export interface CellPageDocument {
  _id: string;
  /** Generation id `<unitId>@<gen>`. */
  g: string;
  o: string;
  /** The family (families.ts). */
  f: string;
  /** Page number. */
  p: number;
  /** Page 0 only: the pages of this owner and family in all. */
  x?: number;
  /**
   * Page 0 only: this owner's family passed its cell cap in this unit, so the entries are not
   * kept: a report of this owner reads the unit's span of this family from smaller units or raw
   * events instead (the other owners and families of the unit are complete).
   */
  over?: true;
  /** Names, key strings, and per entry its name, keys and the devices it has events on. */
  k: Binary;
  /** The aggregates' columns. */
  [column: string]: unknown;
}

/**
 * Format of the pages (in the generation's manifest): a reader refuses a generation of a format
 * it does not read. 2: the first binary pages; 3: the attribution family `c` in place of `a`
 * (families.ts), the builder converting format-2 units (legacy-migration.ts); 4: a visitor
 * sample (`r`) whose visitors are its entry's exact visitor set (`u`) leaves their hashes out
 * (metrics/aggregate.ts `basis`), the builder converting format-3 units; 5: an owner's exact
 * visitor sets in a unit, in every family, are indexes into its visitor dictionary (`v` on its
 * first totals page) instead of hashes, the builder converting format-3 and -4 units; 6: the
 * visitor dictionaries and the sets' indexes into them coded in bits rather than varints
 * (Elias-Fano, sketches/elias-fano.ts), the builder converting format-3 to -5 units.
 */
export const PAGE_FORMAT = 6;
/**
 * The formats reports and builds read as they are: format 3 differs only in the visitor samples
 * holding their hashes, format 4 only in its exact visitor sets holding theirs (no visitor
 * dictionary), format 5 only in its dictionaries and indexes being varints, all of which this
 * reader reads too, so reports keep using those units until the builder has converted them.
 */
export const READ_FORMATS: readonly number[] = [3, 4, 5, PAGE_FORMAT];

/**
 * The column of the owner's visitor dictionary in a unit (sketches/visitor-dictionary.ts), on the
 * first page of the totals family (the one page every owner with events in a unit has), when the
 * owner's exact visitor sets of that unit index into one.
 */
export const VISITORS_COLUMN = 'v';
export const VISITORS_FAMILY = 't';

/** `_id` of a page: JSON, so no owner or generation can make two ids collide. */
export function pageId(g: string, owner: string, family: string, page = 0): string {
  return JSON.stringify(['c', g, owner, family, page]);
}

/** The generation and owner of a page id (undefined for an id of another shape). */
export function parsePageId(id: string): { g: string; owner: string; family: string; page: number } | undefined {
  try {
    const v = JSON.parse(id) as unknown;
    if (!Array.isArray(v) || v[0] !== 'c' || v.length !== 5) return undefined;
    const [, g, owner, family, page] = v as [string, unknown, unknown, unknown, unknown];
    if (typeof g !== 'string' || typeof owner !== 'string' || typeof family !== 'string' || typeof page !== 'number')
      return undefined;
    return { g, owner, family, page };
  } catch {
    return undefined;
  }
}

/** Pages are cut at this many encoded bytes (MongoDB refuses documents over 16 MB; an entry may overshoot by its own size). */
export const MAX_PAGE_BYTES = 4_000_000;

/** The column of an aggregate's per-device states (`foldedWithDevices`). */
export function deviceColumn(column: string): string {
  return `${column}d`;
}

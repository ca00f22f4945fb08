import type { DecodedPage } from '../../rollups/page-reader';

/**
 * Past this many strings, or this many characters in all, the reports that start next take a
 * new table: the old one is dropped once the reports holding it end. The table keeps its strings
 * alive after their pages leave the cache, so this bounds what it holds beyond the cache (a few
 * tens of MiB), and its numbers stay far below what a report's packed group keys take (2^21).
 */
const MAX_STRINGS = 2 ** 18;
const MAX_CHARS = 8 * 1024 * 1024;

/**
 * Strings (rollup entries' names and dimension values, raw rows' group values) given small
 * numbers, shared by the reports of one process: a string keeps its number for as long as the
 * table lives, so a cached page's strings are looked up once per table (`pageStringIds`), not
 * once per report. A report takes one table for its whole merge (`SharedStringIds.forReport`):
 * its numbers never mix with another table's.
 */
export class StringIds {
  private static made = 0;
  /** Told from every other table of the process (a page's looked-up numbers name the table they belong to). */
  readonly generation = StringIds.made++;
  private readonly ids = new Map<string, number>();
  private chars = 0;

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      this.ids.set(value, (id = this.ids.size));
      this.chars += value.length;
    }
    return id;
  }

  get full(): boolean {
    return this.ids.size >= MAX_STRINGS || this.chars >= MAX_CHARS;
  }
}

/** The process's current string table: a report asks for it once, as it starts its merge. */
export class SharedStringIds {
  private table = new StringIds();

  forReport(): StringIds {
    if (this.table.full) this.table = new StringIds();
    return this.table;
  }
}

/** A page's names and strings by their number in one table (a string no report of it grouped by yet: -1). */
export interface PageStringIds {
  readonly names: Int32Array;
  readonly strings: Int32Array;
}

interface PageIdsMemo extends PageStringIds {
  generation: number;
  /** The key positions (a bit each) whose strings are numbered for every entry. */
  positions: number;
}

/** Per decoded page (cached pages are shared by reports): its numbers in the table it last met. */
const MEMO = new WeakMap<DecodedPage, PageIdsMemo>();

/**
 * The numbers of a page's names and of the strings at key `positions` (the dimensions a report
 * groups by), in `table`: looked up the first time a report of this table needs them and kept
 * with the page, so the next report through the same table finds them, and its merge loop only
 * reads them (no lookup, no branch per entry). Only the positions asked for are looked up: a
 * report by content_id never looks up the page's urls. A page met by a report of another table
 * is looked up again (a table's numbers are its own).
 */
export function pageStringIds(page: DecodedPage, table: StringIds, positions: readonly number[]): PageStringIds {
  let memo = MEMO.get(page);
  if (memo === undefined || memo.generation !== table.generation) {
    const names = new Int32Array(page.names.length);
    for (let i = 0; i < names.length; i++) names[i] = table.id(page.names[i]!);
    memo = { generation: table.generation, names, strings: new Int32Array(page.strings.length).fill(-1), positions: 0 };
    MEMO.set(page, memo);
  }
  for (const k of positions) {
    if (memo.positions & (1 << k)) continue;
    numberPosition(page, memo.strings, k, table);
    memo.positions |= 1 << k;
  }
  return memo;
}

/** Every entry's string at key position `k` numbered (each distinct string looked up once). */
function numberPosition(page: DecodedPage, ids: Int32Array, k: number, table: StringIds): void {
  const dims = page.dims;
  for (let i = 0; i < page.count; i++) {
    const at = page.keyOf[i * dims + k]!;
    if (ids[at]! < 0) ids[at] = table.id(page.strings[at]!);
  }
}

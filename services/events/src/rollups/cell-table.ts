import { mergeCellInto, mergeRowInto, untouchedCellValue, type CellValue, type RowStates } from '../metrics/registry';
import type { Family } from './families';
import { compare, type CellEntry } from './page-writer';

/** One entry's identity as one string: length-prefixed parts, so no value can make two entries collide. */
function entryKey(name: string, keys: readonly string[]): string {
  let key = `${name.length}:${name}`;
  for (const k of keys) key += `${k.length}:${k}`;
  return key;
}

/**
 * The cells of one owner and one family in one unit being built, merged in place (no copy per
 * row or entry: the first part of a cell is copied into states the table owns, every later one
 * merged into them). At most `maxCells` cells: past that the owner's family is marked `over` and
 * its cells are dropped, so one owner's flood of distinct urls (or names, countries, campaigns)
 * costs a bounded amount of memory and never fails the unit for the other owners.
 */
export class FamilyTable {
  private cells = new Map<string, CellEntry>();
  over = false;

  constructor(
    readonly family: Family,
    private readonly maxCells: number,
  ) {}

  get size(): number {
    return this.cells.size;
  }

  /** `part` (a page's entry, left as it is) into entry (name, keys); `keys` is kept: a new array the caller leaves alone. */
  add(name: string, keys: readonly string[], part: CellValue): void {
    const into = this.entry(name, keys);
    if (into) mergeCellInto(into, part, this.family.aggregates);
  }

  /** One hour-pipeline row's states, on its device (the builder's hot loop: nothing made for the other devices). */
  addRow(name: string, keys: readonly string[], states: RowStates, device: number): void {
    const into = this.entry(name, keys);
    if (into) mergeRowInto(into, states, device, this.family.aggregates);
  }

  /**
   * The value of the entry (name, keys), new and untouched if it was not there (its states are
   * made as events reach them); undefined once over the cap.
   */
  private entry(name: string, keys: readonly string[]): CellValue | undefined {
    if (this.over) return undefined;
    const key = entryKey(name, keys);
    const seen = this.cells.get(key);
    if (seen) return seen.value;
    if (this.cells.size >= this.maxCells) {
      this.overflow();
      return undefined;
    }
    const value = untouchedCellValue();
    // every caller hands a keys array of its own, made for this row or entry: kept, not copied
    this.cells.set(key, { name, keys, value });
    return value;
  }

  /**
   * Every entry of `other` (the same owner and family in a smaller unit this one covers, its pages
   * written already) merged in, its entries and states taken rather than copied: `other` is left
   * empty. What merging its pages gives, without encoding and decoding them (aggregate merges do
   * not depend on the order of the parts, and a state's stored form holds all of it).
   */
  absorb(other: FamilyTable): void {
    const taken = other.cells;
    const over = other.over;
    other.cells = new Map();
    if (this.over) return;
    if (over) return this.overflow();
    const kept = this.family.aggregates;
    for (const [key, entry] of taken) {
      const seen = this.cells.get(key);
      if (seen) {
        mergeCellInto(seen.value, entry.value, kept);
        continue;
      }
      if (this.cells.size >= this.maxCells) return this.overflow();
      this.cells.set(key, entry);
    }
  }

  overflow(): void {
    this.over = true;
    this.cells.clear();
  }

  /** The entries by name, then keys (code-unit order): the order pages store them in. */
  sorted(): CellEntry[] {
    return [...this.cells.values()].sort((a, b) => compare(a.name, b.name) || compareKeys(a.keys, b.keys));
  }
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

import { BuilderCell } from '../metrics/builder-cell';
import type { CellValue, RowStates } from '../metrics/registry';
import type { Dimension } from '../storage/dimensions';
import type { Family } from './families';
import type { CellEntry } from './page-writer';

/**
 * One entry's identity as one string: its name and keys, each with "\0" written "\0\x01", joined
 * by "\0\0". No two entries share one, and their code-unit order is the pages' order (by name,
 * then keys): "\0\0" sorts below anything a part can hold at that place, and an escaped "\0"
 * below every other character, as "\0" itself does. An entry keeps only this string: its name and
 * keys are read back from it when its page is written.
 */
const SEP = '\0\0';

function escaped(part: string): string {
  return part.indexOf('\0') < 0 ? part : part.replaceAll('\0', '\0\x01');
}

function unescaped(part: string): string {
  return part.indexOf('\0') < 0 ? part : part.replaceAll('\0\x01', '\0');
}

function entryKey(name: string, keys: readonly string[]): string {
  let key = escaped(name);
  for (const k of keys) key += SEP + escaped(k);
  return key;
}

/**
 * The cells of one owner and one family in one unit being built, merged in place (no copy per
 * row or entry: the first part of a cell is kept as the entry's state, every later one merged
 * into it; metrics/builder-cell.ts). At most `maxCells` cells: past that the owner's family is
 * marked `over` and its cells are dropped, so one owner's flood of distinct urls (or names,
 * countries, campaigns) costs a bounded amount of memory and never fails the unit for the other
 * owners.
 */
export class FamilyTable {
  private cells = new Map<string, BuilderCell>();
  over = false;

  constructor(
    readonly family: Family,
    private readonly maxCells: number,
  ) {}

  get size(): number {
    return this.cells.size;
  }

  /** `part` (a page's entry, left as it is) into entry (name, keys). */
  add(name: string, keys: readonly string[], part: CellValue): void {
    this.entry(entryKey(name, keys))?.mergeCell(part, this.family.aggregates);
  }

  /** One hour-pipeline row's states, on its device (the builder's hot loop: nothing made for the other devices). */
  addRow(name: string, keys: readonly string[], states: RowStates, device: number): void {
    this.entry(entryKey(name, keys))?.mergeRow(states, device, this.family.aggregates);
  }

  /** addRow with the row's value of every dimension (`dims`): the family's are read from it, no keys array made. */
  addRowOf(name: string, dims: Readonly<Record<Dimension, string>>, states: RowStates, device: number): void {
    if (this.over) return;
    let key = escaped(name);
    for (const d of this.family.dimensions) key += SEP + escaped(dims[d]);
    this.entry(key)?.mergeRow(states, device, this.family.aggregates);
  }

  /** The entry of `key` (entryKey), new and empty if it was not there; undefined once over the cap. */
  private entry(key: string): BuilderCell | undefined {
    if (this.over) return undefined;
    const seen = this.cells.get(key);
    if (seen) return seen;
    if (this.cells.size >= this.maxCells) {
      this.overflow();
      return undefined;
    }
    const cell = new BuilderCell();
    // a key made by concatenation is a tree of its pieces; reading a character flattens it into
    // one string, about half the bytes (a table may hold a hundred thousand keys)
    key.charCodeAt(0);
    this.cells.set(key, cell);
    return cell;
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
    for (const [key, cell] of taken) {
      const seen = this.cells.get(key);
      if (seen) {
        seen.mergeCell(cell.value(), kept);
        continue;
      }
      if (this.cells.size >= this.maxCells) return this.overflow();
      this.cells.set(key, cell);
    }
  }

  /** Every exact visitor set's hashes of the entries (builder-cell.ts `exactVisitors`), no cell made. */
  exactVisitors(singles: number[], lists: Array<ArrayLike<number>>): void {
    for (const cell of this.cells.values()) cell.exactVisitors(singles, lists);
  }

  overflow(): void {
    this.over = true;
    this.cells.clear();
  }

  /**
   * The entries by name, then keys (code-unit order): the order pages store them in. Each entry's
   * name, keys and value are made when read, and not kept: a page writer holding every entry of a
   * large table holds little more than the table.
   */
  sorted(): CellEntry[] {
    return [...this.cells.keys()].sort().map((key) => new TableEntry(key, this.cells.get(key)!));
  }
}

class TableEntry implements CellEntry {
  constructor(
    private readonly key: string,
    private readonly cell: BuilderCell,
  ) {}

  get name(): string {
    const end = this.key.indexOf(SEP);
    return unescaped(end < 0 ? this.key : this.key.slice(0, end));
  }

  get keys(): readonly string[] {
    const parts = this.key.split(SEP);
    const keys: string[] = [];
    for (let i = 1; i < parts.length; i++) keys.push(unescaped(parts[i]!));
    return keys;
  }

  get value(): CellValue {
    return this.cell.value();
  }
}

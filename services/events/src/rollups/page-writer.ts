import { Binary } from 'mongodb';
import { ByteWriter, writeStringTable, type HashPositions } from '../metrics/byte-codec';
import type { Aggregate, PerDevice } from '../metrics/aggregate';
import { aggregateOf, type CellValue } from '../metrics/registry';
import { unitOfGeneration } from './broken-units';
import type { Family } from './families';
import { parseUnitId } from './rollup-units';
import { writeVisitorDictionary, type VisitorIndex } from '../sketches/visitor-dictionary';
import { writeKeys } from './page-keys';
import {
  deviceColumn,
  MAX_PAGE_BYTES,
  PAGE_FORMAT,
  pageId,
  VISITORS_COLUMN,
  VISITORS_FAMILY,
  type CellPageDocument,
} from './page-layout';

/** One entry to store: its name, the family's dimension values in order, its states per device. */
export interface CellEntry {
  name: string;
  keys: readonly string[];
  value: CellValue;
}

/** Which devices an entry has events on (a bit per device): its count per device says. */
function deviceMask(value: CellValue): number {
  let mask = 0;
  for (let d = 0; d < 3; d++) if (value.count[d] !== 0) mask |= 1 << d;
  return mask;
}

const POPCOUNT = [0, 1, 1, 2, 1, 2, 2, 3];

/**
 * The union of an entry's states on its devices. Most entries have one state that is not empty
 * (one device, or an aggregate kept as one union): that state itself, which merging it with
 * empty ones would only copy (a visitor sample of thousands, a sketch), and which stores alike.
 */
function foldOf(aggregate: Aggregate<unknown>, devices: readonly unknown[], mask: number): unknown {
  let only: unknown;
  let states = 0;
  for (let d = 0; d < 3; d++)
    if (mask & (1 << d) && !aggregate.isEmpty(devices[d])) {
      only = devices[d];
      states++;
    }
  if (states === 0) return aggregate.empty();
  if (states === 1) return only;
  let fold = aggregate.empty();
  for (let d = 0; d < 3; d++) if (mask & (1 << d)) fold = aggregate.merge(fold, devices[d]);
  return fold;
}

/**
 * Packs one owner's entries of one family (sorted by name, then keys) into pages of at most
 * about `maxBytes` encoded bytes each. Entries without events are left out. `format`: the page
 * format (PAGE_FORMAT; 3, the one before aggregates leaned on a `basis`, 4, the one before
 * visitor dictionaries, and 5, the one before they and the sets' indexes were coded in bits, for
 * tests of their migration). `visitors`: the owner's visitor dictionary
 * in this unit (owner-pages.ts), which the exact visitor sets index into; the totals family's
 * first page stores it.
 */
export function writePages(
  g: string,
  owner: string,
  family: Family,
  entries: readonly CellEntry[],
  maxBytes = MAX_PAGE_BYTES,
  format = PAGE_FORMAT,
  visitors?: VisitorIndex,
): CellPageDocument[] {
  const pages: CellPageDocument[] = [];
  let page: PageBuilder | undefined;
  const dictionary = format >= 5 ? visitors : undefined;
  for (const entry of entries) {
    // an entry's value may be made on each read (cell-table.ts): read once
    const value = entry.value;
    const mask = deviceMask(value);
    if (mask === 0) continue;
    page ??= new PageBuilder(unitStartOf(g), family, format, dictionary?.indexOf);
    page.add(entry, value, mask);
    if (page.bytes >= maxBytes) {
      pages.push(page.document(g, owner, family, pages.length));
      page = undefined;
    }
  }
  if (page || pages.length === 0)
    pages.push((page ?? new PageBuilder(unitStartOf(g), family, format)).document(g, owner, family, pages.length));
  pages[0]!.x = pages.length;
  if (dictionary && family.id === VISITORS_FAMILY)
    pages[0]![VISITORS_COLUMN] = new Binary(writeVisitorDictionary(dictionary.hashes, format >= 6));
  return pages;
}

/** The page 0 of an owner's family whose cells passed the cap: no entries, marked. */
export function overflowPage(g: string, owner: string, family: Family): CellPageDocument {
  const doc = new PageBuilder(unitStartOf(g), family, PAGE_FORMAT).document(g, owner, family, 0);
  doc.x = 1;
  doc.over = true;
  return doc;
}

class PageBuilder {
  private readonly entries: Array<{ name: string; keys: readonly string[]; mask: number }> = [];
  private readonly columns = new Map<string, ByteWriter>();
  bytes = 0;

  /**
   * `base`: the unit's start, what the columns' times are relative to; only the family's
   * aggregates are kept; `format`: the page format (an aggregate's stored form leans on its
   * `basis` from 4 on, visitor sets and keys are coded in bits and runs from 6 on).
   */
  private readonly bases: boolean;
  constructor(
    private readonly base: number,
    private readonly family: Family,
    private readonly format: number,
    private readonly visitors?: HashPositions,
  ) {
    this.bases = format >= 4;
  }

  add(entry: CellEntry, value: CellValue, mask: number): void {
    const keys = entry.keys;
    this.entries.push({ name: entry.name, keys, mask });
    this.bytes += 8;
    for (const k of keys) this.bytes += k.length;
    const states = value as Record<string, readonly unknown[]>;
    // each folded aggregate's union, for an aggregate whose stored form leans on it (`basis`)
    const folds = new Map<string, unknown>();
    for (const name of this.family.aggregates) {
      const aggregate = aggregateOf(name);
      const devices = states[name]!;
      const folded = aggregate.storage !== 'perDevice';
      if (aggregate.storage === 'perDevice') {
        const w = this.writer(aggregate.column);
        const before = w.length;
        for (let d = 0; d < 3; d++) if (mask & (1 << d)) aggregate.write(w, devices[d]);
        this.bytes += w.length - before;
      }
      let fold: unknown;
      if (folded) {
        const w = this.writer(aggregate.column);
        const before = w.length;
        fold = foldOf(aggregate, devices, mask);
        aggregate.write(w, fold, aggregate.basis === undefined || !this.bases ? undefined : folds.get(aggregate.basis));
        folds.set(name, fold);
        this.bytes += w.length - before;
      }
      if (aggregate.storage === 'foldedWithDevices' && POPCOUNT[mask]! > 1) {
        const w = this.writer(deviceColumn(aggregate.column));
        const before = w.length;
        if (aggregate.writeDevices) aggregate.writeDevices(w, devices as PerDevice<unknown>, mask, fold!);
        else for (let d = 0; d < 3; d++) if (mask & (1 << d)) aggregate.write(w, devices[d]);
        this.bytes += w.length - before;
      }
    }
  }

  document(g: string, owner: string, family: Family, p: number): CellPageDocument {
    const doc: CellPageDocument = {
      _id: pageId(g, owner, family.id, p),
      g,
      o: owner,
      f: family.id,
      p,
      k: this.keys(family),
    };
    for (const [column, w] of this.columns) {
      const out = new ByteWriter(w.length + 64);
      const table = w.internedTable();
      out.uint(table.length);
      for (const s of table) out.string(s);
      out.raw(w.bytes());
      doc[column] = new Binary(out.bytes());
    }
    return doc;
  }

  private writer(column: string): ByteWriter {
    let w = this.columns.get(column);
    if (!w) {
      this.columns.set(column, (w = new ByteWriter(1024, this.base)));
      w.visitors = this.visitors;
      w.visitorBits = this.format >= 6;
    }
    return w;
  }

  /**
   * Names and key strings once each (sorted; key strings front-coded), then the entries' indexes
   * into them and device masks: per entry before format 6, as runs and packed masks from 6 on
   * (page-keys.ts).
   */
  private keys(family: Family): Binary {
    // one map per table: each distinct string once, then its index in the sorted table
    const nameIndex = new Map<string, number>();
    const stringIndex = new Map<string, number>();
    for (const entry of this.entries) {
      nameIndex.set(entry.name, 0);
      for (const key of entry.keys) stringIndex.set(key, 0);
    }
    const names = [...nameIndex.keys()].sort(compare);
    const strings = [...stringIndex.keys()].sort(compare);
    for (let i = 0; i < names.length; i++) nameIndex.set(names[i]!, i);
    for (let i = 0; i < strings.length; i++) stringIndex.set(strings[i]!, i);
    const w = new ByteWriter(64 + this.entries.length * (2 + family.dimensions.length));
    if (this.format >= 6) {
      const dims = family.dimensions.length;
      const n = this.entries.length;
      const nameOf = new Uint32Array(n);
      const keyOf = new Uint32Array(n * dims);
      const masks = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const { name, keys, mask } = this.entries[i]!;
        nameOf[i] = nameIndex.get(name)!;
        for (let k = 0; k < dims; k++) keyOf[i * dims + k] = stringIndex.get(keys[k]!)!;
        masks[i] = mask;
      }
      writeKeys(w, dims, names, strings, n, nameOf, keyOf, masks);
      return new Binary(w.bytes());
    }
    w.uint(family.dimensions.length);
    writeStringTable(w, names);
    writeStringTable(w, strings);
    w.uint(this.entries.length);
    for (const { name, keys, mask } of this.entries) {
      w.uint(nameIndex.get(name)!);
      for (const key of keys) w.uint(stringIndex.get(key)!);
      w.byte(mask);
    }
    return new Binary(w.bytes());
  }
}

/** The start of a generation's unit: what its pages' times are relative to (0 for an id of another shape). */
export function unitStartOf(g: string): number {
  return parseUnitId(unitOfGeneration(g))?.start ?? 0;
}

/** Code-unit order: the same on every server and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { Binary } from 'mongodb';
import { ByteReader, StoredFormatError } from '../metrics/byte-codec';
import type { Aggregate } from '../metrics/aggregate';
import { AGGREGATE_NAMES, aggregateOf, type AggregateName, type CellValue } from '../metrics/registry';
import { checkPageFields } from './damaged-pages';
import { readVisitorDictionary } from '../sketches/visitor-dictionary';
import { deviceColumn, VISITORS_COLUMN, VISITORS_FAMILY, type CellPageDocument } from './page-layout';
import { familyById } from './families';
import { readKeys } from './page-keys';
import { unitStartOf } from './page-writer';

/**
 * A stored page read back: its entries' names and keys as indexes into its tables, the devices
 * each entry has events on, and the columns decoded so far (a reader decodes only the columns it
 * reads). Never changed once decoded: a cache may share it between reports.
 */
export class DecodedPage {
  readonly names: readonly string[];
  readonly strings: readonly string[];
  readonly count: number;
  /** Entry i's name: names[nameOf[i]]. */
  readonly nameOf: Uint32Array;
  /** Entry i's value of the family's dimension k: strings[keyOf[i * dims + k]]. */
  readonly keyOf: Uint32Array;
  readonly mask: Uint8Array;
  readonly dims: number;
  /** Per aggregate: entry i's state over its devices (folded[i]) and per device (perDevice[3 * i + d]). */
  private readonly folded = new Map<string, readonly unknown[]>();
  /**
   * Folded columns decoded for some entries only (an aggregate with `skip`, loaded for a report's
   * filters): which entries. A later load for other entries decodes those too, into a new array
   * holding every entry decoded before, so a report that loaded its entries always finds them.
   */
  private readonly decodedOf = new Map<string, Uint8Array>();
  private readonly perDevice = new Map<string, readonly unknown[]>();
  bytes: number;
  /** The unit's start: what the columns' times are relative to. */
  private readonly base: number;
  /**
   * The owner's visitor dictionary of this page's unit (`visitorDictionary` of its first totals
   * page), which its exact visitor sets may index into: given before a column holding them is
   * loaded (one whose sets index into it and is loaded without it is damage).
   */
  visitors?: Float64Array | (() => Float64Array);

  constructor(readonly doc: Pick<CellPageDocument, '_id' | 'g' | 'o' | 'f' | 'p' | 'x' | 'over' | 'k'>) {
    checkPageFields(doc);
    this.base = unitStartOf(doc.g);
    const r = new ByteReader(binaryBytes(doc.k));
    const keys = readKeys(r);
    this.dims = keys.dims;
    this.names = keys.names;
    this.strings = keys.strings;
    this.count = keys.count;
    this.nameOf = keys.nameOf;
    this.keyOf = keys.keyOf;
    this.mask = keys.mask;
    if (!r.done) throw new StoredFormatError('stored page keys have trailing bytes');
    this.bytes = 200 + this.count * (9 + 4 * this.dims) + sumLengths(this.names) + sumLengths(this.strings);
  }

  /**
   * Whether `load` was given the columns of this aggregate (folded, and per device when asked),
   * for the entries `wanted` keeps (every entry when absent).
   */
  has(name: AggregateName, devices: boolean, wanted?: (i: number) => boolean): boolean {
    const storage = aggregateOf(name).storage;
    if (storage === 'perDevice' || (storage === 'foldedWithDevices' && devices)) return this.perDevice.has(name);
    if (!this.folded.has(name)) return false;
    const decoded = this.decodedOf.get(name);
    if (!decoded) return true;
    for (let i = 0; i < this.count; i++) if (!decoded[i] && (!wanted || wanted(i))) return false;
    return true;
  }

  /**
   * Decodes an aggregate's columns from a document holding them (the page's own or a later
   * projection). `wanted`: the entries a report keeps; an aggregate that can `skip` decodes only
   * those (the others stay undefined), every other aggregate decodes every entry.
   */
  load(
    name: AggregateName,
    devices: boolean,
    doc: Record<string, unknown>,
    sizeOf: (state: unknown) => number,
    wanted?: (i: number) => boolean,
  ): void {
    const aggregate = aggregateOf(name);
    if (aggregate.storage === 'folded' && aggregate.skip && wanted) {
      if (!this.has(name, devices, wanted)) this.loadSome(name, doc, sizeOf, wanted);
      return;
    }
    if (aggregate.storage === 'perDevice') {
      if (this.perDevice.has(name)) return;
      const r = this.column(doc, aggregate.column);
      const states = new Array<unknown>(3 * this.count);
      const empty = aggregate.empty();
      for (let i = 0; i < this.count; i++) {
        for (let d = 0; d < 3; d++) {
          const state = r && this.mask[i]! & (1 << d) ? aggregate.read(r) : empty;
          states[3 * i + d] = state;
          if (state !== empty) this.bytes += sizeOf(state);
        }
      }
      finish(r);
      this.perDevice.set(name, states);
      return;
    }
    if (!this.folded.has(name) || this.decodedOf.has(name)) {
      const basis = this.basisOf(aggregate, doc, sizeOf);
      const r = this.column(doc, aggregate.column);
      const states = new Array<unknown>(this.count);
      for (let i = 0; i < this.count; i++) {
        states[i] = r ? aggregate.read(r, basis?.[i]) : aggregate.empty();
        this.bytes += sizeOf(states[i]);
      }
      finish(r);
      this.folded.set(name, states);
      this.decodedOf.delete(name);
    }
    if (aggregate.storage === 'foldedWithDevices' && devices && !this.perDevice.has(name)) {
      const folded = this.folded.get(name)!;
      const r = columnReader(doc[deviceColumn(aggregate.column)], this.base, this.visitors);
      const empty = aggregate.empty();
      const states = new Array<unknown>(3 * this.count).fill(empty);
      for (let i = 0; i < this.count; i++) {
        const mask = this.mask[i]!;
        if (mask === 1 || mask === 2 || mask === 4) {
          // one device: its state is the entry's
          states[3 * i + (mask >> 1)] = folded[i];
          continue;
        }
        if (!r) throw new StoredFormatError('stored page lacks per-device states');
        const devices = aggregate.readDevices ? aggregate.readDevices(r, mask, folded[i]) : undefined;
        for (let d = 0; d < 3; d++) {
          if (!(mask & (1 << d))) continue;
          states[3 * i + d] = devices ? devices[d] : aggregate.read(r);
          this.bytes += sizeOf(states[3 * i + d]);
        }
      }
      finish(r);
      this.perDevice.set(name, states);
    }
  }

  /** A folded column's wanted entries decoded (and those decoded before kept), the others stepped over. */
  private loadSome(
    name: AggregateName,
    doc: Record<string, unknown>,
    sizeOf: (state: unknown) => number,
    wanted: (i: number) => boolean,
  ): void {
    const aggregate = aggregateOf(name);
    const before = this.folded.get(name);
    const decodedBefore = this.decodedOf.get(name);
    const isKnown = (i: number): boolean =>
      before !== undefined && decodedBefore !== undefined && decodedBefore[i] === 1;
    const basis = this.basisOf(aggregate, doc, sizeOf, (i) => wanted(i) && !isKnown(i));
    const r = this.column(doc, aggregate.column);
    const states = new Array<unknown>(this.count);
    const decoded = new Uint8Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const known = isKnown(i);
      if (!r) states[i] = aggregate.empty();
      else if (known || !wanted(i)) aggregate.skip!(r);
      else {
        states[i] = aggregate.read(r, basis?.[i]);
        this.bytes += sizeOf(states[i]);
      }
      if (known) states[i] = before![i];
      decoded[i] = known || !r || wanted(i) ? 1 : 0;
    }
    finish(r);
    this.folded.set(name, states);
    this.decodedOf.set(name, decoded);
  }

  /**
   * The unions of an aggregate's `basis` (the states its stored form leans on), when its family
   * keeps that: those decoded already, else the basis column decoded for the entries `needed`
   * keeps (undefined for the others; every entry when absent), stepping over the rest.
   */
  private basisOf(
    aggregate: Aggregate<unknown>,
    doc: Record<string, unknown>,
    sizeOf: (state: unknown) => number,
    needed?: (i: number) => boolean,
  ): readonly unknown[] | undefined {
    const name = aggregate.basis as AggregateName | undefined;
    if (name === undefined || !familyById(this.doc.f)?.aggregates.includes(name)) return undefined;
    if (this.folded.has(name) && !this.decodedOf.has(name)) return this.folded.get(name);
    const basis = aggregateOf(name);
    if (!needed || !basis.skip) {
      this.load(name, false, doc, sizeOf);
      return this.folded.get(name);
    }
    const r = this.column(doc, basis.column);
    const states = new Array<unknown>(this.count);
    for (let i = 0; i < this.count; i++) {
      if (!r) break;
      if (needed(i)) states[i] = basis.read(r);
      else basis.skip(r);
    }
    finish(r);
    return states;
  }

  /**
   * An aggregate's column of this page: every page with entries has one for each aggregate its
   * family keeps, so one missing (a page replaced by another document since its keys were read,
   * or written by something else) is damage, never a column of empty states.
   */
  private column(doc: Record<string, unknown>, column: string): ByteReader | undefined {
    const r = columnReader(doc[column], this.base, this.visitors);
    if (!r && this.count > 0) throw new StoredFormatError(`stored page lacks its column ${column}`);
    return r;
  }

  /** Every entry's state over its devices (index i), as loaded. */
  foldedStates(name: AggregateName): readonly unknown[] {
    return this.folded.get(name)!;
  }

  /** Every entry's state per device (index 3 i + d), as loaded. */
  deviceStates(name: AggregateName): readonly unknown[] {
    return this.perDevice.get(name)!;
  }

  /** Entry i's state over its devices (a folded aggregate's stored union, else the merge of its devices). */
  foldedState(name: AggregateName, i: number): unknown {
    return this.folded.get(name)![i];
  }

  /** Entry i's state on device d. */
  deviceState(name: AggregateName, i: number, d: number): unknown {
    return this.perDevice.get(name)![3 * i + d];
  }
}

/** A stored column: its table of interned strings, then its entries. */
function columnReader(
  value: unknown,
  base: number,
  visitors: Float64Array | (() => Float64Array) | undefined,
): ByteReader | undefined {
  if (value === undefined || value === null) return undefined;
  const r = new ByteReader(binaryBytes(value));
  r.base = base;
  r.visitors = visitors;
  const n = r.count(1);
  const table = new Array<string>(n);
  for (let i = 0; i < n; i++) table[i] = r.string();
  r.table = table;
  return r;
}

function finish(r: ByteReader | undefined): void {
  if (r && !r.done) throw new StoredFormatError('stored column has trailing bytes');
}

function binaryBytes(value: unknown): Uint8Array {
  const b = value as Binary | undefined;
  if (!b || !(b.buffer instanceof Uint8Array)) throw new StoredFormatError('stored column is not binary');
  return b.buffer.subarray(0, b.position);
}

function sumLengths(xs: readonly string[]): number {
  let n = 0;
  for (const x of xs) n += 40 + 2 * x.length;
  return n;
}

/** Whether a read of these columns decodes visitor sets (which may index into a visitor dictionary). */
export function readsVisitorSets(columns: readonly string[]): boolean {
  const column = aggregateOf('uniques').column;
  return columns.includes(column) || columns.includes(deviceColumn(column));
}

/**
 * The visitor dictionary a page stores (the first totals page of an owner in a unit of format 5
 * or later), or undefined when it holds none; damaged bytes throw StoredFormatError.
 */
export function visitorDictionary(doc: { f: string; p: number } & Record<string, unknown>): Float64Array | undefined {
  const value = doc[VISITORS_COLUMN];
  if (value === undefined || value === null || doc.f !== VISITORS_FAMILY || doc.p !== 0) return undefined;
  return readVisitorDictionary(binaryBytes(value));
}

/**
 * Every entry of a stored page as a cell (its states per device), every column decoded: what a
 * parent unit is merged from. The states are the page's: merge them into states of your own.
 * `visitors`: the owner's visitor dictionary of the page's unit (visitorDictionary), when it has one.
 */
export function forEachStoredEntry(
  doc: CellPageDocument,
  use: (name: string, keys: string[], value: CellValue) => void,
  visitors?: Float64Array,
): void {
  const page = new DecodedPage(doc);
  page.visitors = visitors;
  const kept = familyById(doc.f)?.aggregates ?? AGGREGATE_NAMES;
  for (const name of kept) page.load(name, true, doc, () => 0);
  for (let i = 0; i < page.count; i++) {
    const value = {} as Record<AggregateName, unknown[]>;
    for (const name of AGGREGATE_NAMES) {
      const aggregate = aggregateOf(name);
      if (!kept.includes(name)) {
        // not kept by this family: empty (its parent does not keep it either)
        const empty = aggregate.empty();
        value[name] = [empty, empty, empty];
      } else if (aggregate.storage === 'folded') {
        // only the union is stored: it goes to the entry's first device (packing folds them again)
        const empty = aggregate.empty();
        const first = Math.log2(page.mask[i]! & -page.mask[i]!);
        value[name] = [empty, empty, empty];
        value[name][first] = page.foldedState(name, i);
      } else value[name] = [page.deviceState(name, i, 0), page.deviceState(name, i, 1), page.deviceState(name, i, 2)];
    }
    const keys = new Array<string>(page.dims);
    for (let k = 0; k < page.dims; k++) keys[k] = page.strings[page.keyOf[i * page.dims + k]!]!;
    use(page.names[page.nameOf[i]!]!, keys, value as CellValue);
  }
}

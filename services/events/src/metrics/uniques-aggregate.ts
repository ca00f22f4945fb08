import type { Document } from 'mongodb';
import {
  addHash,
  emptySketch,
  mergeInto,
  mergeSketches,
  sketchBytes,
  sketchCount,
  sketchOfHash,
  type DistinctSketch,
} from '../sketches/distinct-sketch';
import { DistinctAccumulator } from '../sketches/distinct-accumulator';
import { exactSketch } from '../sketches/sketch-model';
import { readSketch, skipSketch, writeSketch } from '../sketches/sketch-binary';
import type { Aggregate, ParsedMetric, PerDevice } from './aggregate';
import { StoredFormatError, type ByteReader, type ByteWriter } from './byte-codec';

/** The largest visitor hash plus one: hashes are the first 52 bits of an HMAC. */
const VISITOR_HASH_LIMIT = 2 ** 52;

/** Whether a stored `visitor` is a visitor hash (events stored before visitors were recorded have none). */
export function isVisitorHash(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < VISITOR_HASH_LIMIT;
}

/**
 * Distinct visitors: a sketch of visitor hashes (sketches/distinct-sketch.ts: exact while
 * small, a HyperLogLog beyond), so hours merge into days and blocks, and a report merges cells
 * with raw rows, without ever counting a visitor twice. Both pipelines group by the visitor as
 * well (one row per visitor and group), so no `$addToSet` can outgrow a document however many
 * visitors an hour has. Stored as the union over the entry's devices (what a report without a
 * device filter reads) and, for entries of several devices, each device's sketch.
 * Answers `uniques` (and `uniques_exact`).
 */
export const uniquesAggregate: Aggregate<UniquesState> = {
  column: 'u',
  storage: 'foldedWithDevices',
  empty: emptySketch,
  // no estimate made to tell (a builder asks of every state it writes)
  isEmpty: (s) => (s.kind === 'exact' ? s.hashes.length === 0 : s.kind === 'accumulator' && s.isEmpty()),
  add: (state, event) => (isVisitorHash(event.visitor) ? addHash(sketchOf(state), event.visitor) : state),
  merge: (a, b) => mergeSketches(sketchOf(a), sketchOf(b)),
  mergeInto: (target, part) => mergeInto(sketchOf(target), sketchOf(part)),
  own: (s) => mergeSketches(sketchOf(s), emptySketch()),
  // a sketch is never written: held as it is; another group's accumulator goes on taking parts, so
  // the group takes an accumulator of its own (its lists by reference: they are never written)
  reportOwn: (part) => (part instanceof DistinctAccumulator ? reportMergeInto(emptySketch(), part) : part),
  reportMergeInto,
  // one visitor: its hash
  compact: (s) => {
    const sketch = sketchOf(s);
    return sketch.kind === 'exact' && sketch.hashes.length === 1 ? sketch.hashes[0] : undefined;
  },
  expand: (hash) => sketchOfHash(hash as number),
  compactOfRow: (row) => {
    const visitor: unknown = (row._id as Document).v;
    return isVisitorHash(visitor) ? visitor : undefined;
  },
  rowKey: () => ({ v: '$visitor' }),
  rowGroup: () => ({}),
  fromRow: (row) => sketchOfVisitor((row._id as Document).v),
  write: (w, s) => writeSketch(w, sketchOf(s)),
  read: readSketch,
  // a visitor sample leaning on these sets reads only its wanted entries' (page-reader.ts)
  skip: skipSketch,
  writeDevices: (w, states, mask, folded) =>
    writeDevices(w, states.map(sketchOf) as PerDevice<DistinctSketch>, mask, sketchOf(folded)),
  readDevices: (r, mask, folded) => readDevices(r, mask, sketchOf(folded)),
  asked: (ask) => ask.metrics.has('u'),
  parseMetric: (name) => (name === 'uniques' ? ({ metric: 'uniques' } satisfies ParsedMetric) : undefined),
  bytes: (s) => (s instanceof DistinctAccumulator ? s.bytes() : sketchBytes(s)),
  fields: (state, _metric, row) => {
    const { value, exact } = countOf(state);
    row.uniques = value;
    row.uniques_exact = exact;
  },
  rank: (state) => countOf(state).value,
};

/**
 * A state of distinct visitors: a sketch (stored, built, or a part a report group holds as it is),
 * or a report group's accumulator (sketches/distinct-accumulator.ts) once the group met a second
 * part.
 */
export type UniquesState = DistinctSketch | DistinctAccumulator;

/**
 * A report group's merge. The group's first part is held as it is (reportOwn: shared, never
 * written); a second makes the group an accumulator of its own, which takes every later part.
 */
function reportMergeInto(target: UniquesState, part: UniquesState): UniquesState {
  const out = target instanceof DistinctAccumulator ? target : new DistinctAccumulator(target);
  out.add(part);
  return out;
}

/** The sketch of a state (an accumulator's union as a sketch of its own). */
export function sketchOf(state: UniquesState): DistinctSketch {
  return state instanceof DistinctAccumulator ? state.sketch() : state;
}

/** The distinct count of a state: exact while it is a set, else the estimate. */
export function countOf(state: UniquesState): { value: number; exact: boolean } {
  return state instanceof DistinctAccumulator ? state.count() : sketchCount(state);
}

function sketchOfVisitor(value: unknown): UniquesState {
  return isVisitorHash(value) ? sketchOfHash(value) : emptySketch();
}

/**
 * The devices of an entry's visitors, knowing their union: while the union is an exact set, a
 * device mark per visitor in its order, one bit for each device the entry has events on (the
 * reader knows them from the entry's mask: two or three bits, packed), a ninth to a fifth of the
 * bytes of a set per device; a union past the exact size stores each device's sketch. Kind 0,
 * four bits a mark whatever the devices, is still read (pages written before kind 2).
 */
const NO_HASHES: readonly number[] = [];

function writeDevices(
  w: ByteWriter,
  states: Readonly<PerDevice<DistinctSketch>>,
  mask: number,
  folded: DistinctSketch,
): void {
  if (folded.kind !== 'exact') {
    w.byte(1);
    for (let d = 0; d < 3; d++) if (mask & (1 << d)) writeSketch(w, states[d]!);
    return;
  }
  w.byte(2);
  const present = devicesOf(mask);
  // every exact set is ascending and within the union: one walk along the four, no set per device
  const lists = states.map((s) => (s.kind === 'exact' ? s.hashes : NO_HASHES));
  const at = [0, 0, 0];
  let pending = 0;
  let bits = 0;
  for (const hash of folded.hashes) {
    let mark = 0;
    for (let k = 0; k < present.length; k++) {
      const d = present[k]!;
      const list = lists[d]!;
      let i = at[d]!;
      while (i < list.length && list[i]! < hash) i++;
      if (i < list.length && list[i] === hash) mark |= 1 << k;
      at[d] = i;
    }
    pending |= mark << bits;
    bits += present.length;
    if (bits >= 8) {
      w.byte(pending & 0xff);
      pending >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) w.byte(pending);
}

/** The devices of a mask, in order. */
function devicesOf(mask: number): number[] {
  const out: number[] = [];
  for (let d = 0; d < 3; d++) if (mask & (1 << d)) out.push(d);
  return out;
}

function readDevices(r: ByteReader, mask: number, folded: DistinctSketch): PerDevice<DistinctSketch> {
  const kind = r.byte();
  const out: PerDevice<DistinctSketch> = [emptySketch(), emptySketch(), emptySketch()];
  if (kind === 1) {
    for (let d = 0; d < 3; d++) if (mask & (1 << d)) out[d] = readSketch(r);
    return out;
  }
  if ((kind !== 0 && kind !== 2) || folded.kind !== 'exact')
    throw new StoredFormatError('stored visitor devices do not match their union');
  const lists: number[][] = [[], [], []];
  if (kind === 0) readFourBitMarks(r, mask, folded.hashes, lists);
  else readPackedMarks(r, devicesOf(mask), folded.hashes, lists);
  // each list was taken in the union's order: already sorted and without repeats
  for (let d = 0; d < 3; d++) if (lists[d]!.length > 0) out[d] = exactSketch(lists[d]!);
  return out;
}

function readFourBitMarks(r: ByteReader, mask: number, hashes: readonly number[], lists: number[][]): void {
  for (let i = 0; i < hashes.length; i += 2) {
    const b = r.byte();
    for (const [bits, hash] of [
      [b & 0x0f, hashes[i]],
      [b >> 4, hashes[i + 1]],
    ] as Array<[number, number | undefined]>) {
      if (hash === undefined) continue;
      if (bits === 0 || bits & ~mask) throw new StoredFormatError('stored visitor device mark out of range');
      for (let d = 0; d < 3; d++) if (bits & (1 << d)) lists[d]!.push(hash);
    }
  }
}

/** Marks of `present.length` bits each, packed low bits first (kind 2). */
function readPackedMarks(
  r: ByteReader,
  present: readonly number[],
  hashes: readonly number[],
  lists: number[][],
): void {
  const width = present.length;
  const full = (1 << width) - 1;
  let pending = 0;
  let bits = 0;
  for (const hash of hashes) {
    if (bits < width) {
      pending |= r.byte() << bits;
      bits += 8;
    }
    const mark = pending & full;
    pending >>>= width;
    bits -= width;
    if (mark === 0) throw new StoredFormatError('stored visitor device mark out of range');
    for (let k = 0; k < width; k++) if (mark & (1 << k)) lists[present[k]!]!.push(hash);
  }
  // the last byte's unused bits are zero, as written
  if (pending !== 0) throw new StoredFormatError('stored visitor device marks are damaged');
}

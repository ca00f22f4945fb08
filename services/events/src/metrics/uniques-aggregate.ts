import type { Document } from 'mongodb';
import {
  addHash,
  emptySketch,
  mergeInto,
  mergeSketches,
  sketchBytes,
  sketchCount,
  sketchOfHash,
  sketchOfHashes,
  type DistinctSketch,
} from '../sketches/distinct-sketch';
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
export const uniquesAggregate: Aggregate<DistinctSketch> = {
  column: 'u',
  storage: 'foldedWithDevices',
  empty: emptySketch,
  isEmpty: (s) => s.kind === 'exact' && s.hashes.length === 0,
  add: (state, event) => (isVisitorHash(event.visitor) ? addHash(state, event.visitor) : state),
  merge: mergeSketches,
  mergeInto,
  own: (s) => mergeSketches(s, emptySketch()),
  // one visitor: its hash
  compact: (s) => (s.kind === 'exact' && s.hashes.length === 1 ? s.hashes[0] : undefined),
  expand: (hash) => sketchOfHash(hash as number),
  rowKey: () => ({ v: '$visitor' }),
  rowGroup: () => ({}),
  fromRow: (row) => sketchOfVisitor((row._id as Document).v),
  write: writeSketch,
  read: readSketch,
  // a visitor sample leaning on these sets reads only its wanted entries' (page-reader.ts)
  skip: skipSketch,
  writeDevices,
  readDevices,
  asked: (ask) => ask.metrics.has('u'),
  parseMetric: (name) => (name === 'uniques' ? ({ metric: 'uniques' } satisfies ParsedMetric) : undefined),
  bytes: sketchBytes,
  fields: (state, _metric, row) => {
    const { value, exact } = sketchCount(state);
    row.uniques = value;
    row.uniques_exact = exact;
  },
  rank: (state) => sketchCount(state).value,
};

function sketchOfVisitor(value: unknown): DistinctSketch {
  return isVisitorHash(value) ? sketchOfHash(value) : emptySketch();
}

/**
 * The devices of an entry's visitors, knowing their union: while the union is an exact set, a
 * device mark (3 bits, two to a byte) per visitor in its order, a seventh of the bytes of a set
 * per device; a union past the exact size stores each device's sketch.
 */
const NO_HASHES: readonly number[] = [];

function writeDevices(
  w: ByteWriter,
  states: Readonly<PerDevice<DistinctSketch>>,
  _mask: number,
  folded: DistinctSketch,
): void {
  if (folded.kind !== 'exact') {
    w.byte(1);
    for (let d = 0; d < 3; d++) if (_mask & (1 << d)) writeSketch(w, states[d]!);
    return;
  }
  w.byte(0);
  // every exact set is ascending and within the union: one walk along the four, no set per device
  const lists = states.map((s) => (s.kind === 'exact' ? s.hashes : NO_HASHES));
  const at = [0, 0, 0];
  let pending = -1;
  for (const hash of folded.hashes) {
    let bits = 0;
    for (let d = 0; d < 3; d++) {
      const list = lists[d]!;
      let i = at[d]!;
      while (i < list.length && list[i]! < hash) i++;
      if (i < list.length && list[i] === hash) bits |= 1 << d;
      at[d] = i;
    }
    if (pending < 0) pending = bits;
    else {
      w.byte(pending | (bits << 4));
      pending = -1;
    }
  }
  if (pending >= 0) w.byte(pending);
}

function readDevices(r: ByteReader, mask: number, folded: DistinctSketch): PerDevice<DistinctSketch> {
  const kind = r.byte();
  const out: PerDevice<DistinctSketch> = [emptySketch(), emptySketch(), emptySketch()];
  if (kind === 1) {
    for (let d = 0; d < 3; d++) if (mask & (1 << d)) out[d] = readSketch(r);
    return out;
  }
  if (kind !== 0 || folded.kind !== 'exact')
    throw new StoredFormatError('stored visitor devices do not match their union');
  const lists: number[][] = [[], [], []];
  const hashes = folded.hashes;
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
  for (let d = 0; d < 3; d++) if (lists[d]!.length > 0) out[d] = sketchOfHashes(lists[d]!);
  return out;
}

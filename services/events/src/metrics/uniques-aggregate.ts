import type { Document } from 'mongodb';
import {
  addHash,
  emptySketch,
  mergeInto,
  mergeSketches,
  sketchBytes,
  sketchCount,
  sketchOfHashes,
  type DistinctSketch,
} from '../sketches/distinct-sketch';
import { readSketch, writeSketch } from '../sketches/sketch-binary';
import type { Aggregate, ParsedMetric } from './aggregate';

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
  rowKey: () => ({ v: '$visitor' }),
  rowGroup: () => ({}),
  fromRow: (row) => sketchOfVisitor((row._id as Document).v),
  write: writeSketch,
  read: readSketch,
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

export function sketchOfVisitor(value: unknown): DistinctSketch {
  return isVisitorHash(value) ? sketchOfHashes([value]) : emptySketch();
}

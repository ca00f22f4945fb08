import type { Document } from 'mongodb';
import {
  addHash,
  decodeSketch,
  emptySketch,
  encodeSketch,
  mergeSketches,
  sketchOfHashes,
  type DistinctSketch,
} from '../../sketches/distinct-sketch';
import type { Aggregate, PerDevice } from './aggregate';

/** The largest visitor hash plus one: hashes are the first 52 bits of an HMAC. */
const VISITOR_HASH_LIMIT = 2 ** 52;

/** Whether a stored `visitor` is a visitor hash (events stored before visitors were recorded have none). */
function isVisitorHash(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < VISITOR_HASH_LIMIT;
}

/**
 * Distinct visitors: a sketch of visitor hashes per cell and device, exact while small and a
 * HyperLogLog beyond (sketches/distinct-sketch.ts), so hours merge into days and blocks, and a
 * report merges cells with raw parts, without ever counting a visitor twice. Stored in the side
 * field `u` (a report reads it only when it asks for uniques). Both pipelines group by the
 * visitor as well (one row per visitor and group, folded here), so no `$addToSet` can outgrow a
 * document however many visitors an hour has.
 */
export const uniquesAggregate: Aggregate<DistinctSketch, DistinctSketch | undefined> = {
  empty: emptySketch,
  add: (state, event) => (isVisitorHash(event.visitor) ? addHash(state, event.visitor) : state),
  merge: mergeSketches,
  stored: 'side',
  sideField: 'u',
  encode: (states) => states.map(encodeSketch),
  decode: (stored) => {
    if (!Array.isArray(stored)) return [emptySketch(), emptySketch(), emptySketch()];
    return [decodeSketch(stored[0]), decodeSketch(stored[1]), decodeSketch(stored[2])] as PerDevice<DistinctSketch>;
  },
  groupKey: () => ({ v: '$visitor' }),
  group: () => ({}),
  fromGroup: (row) => sketchOfVisitor((row._id as Document).v),
  answer: (state) => state,
  answerField: 'uniques',
  // a report over every device reads the folded sketches instead (all-device-uniques-aggregate.ts)
  asked: (ask) => ask.uniques && !ask.allDevices,
  reportGroup: () => ({}),
  reportGroupKey: (ask) => (ask.uniques ? { visitor: '$visitor' } : {}),
  fromReportGroup: (row, ask) => (ask.uniques ? sketchOfVisitor((row._id as Document).visitor) : undefined),
};

export function sketchOfVisitor(value: unknown): DistinctSketch {
  return isVisitorHash(value) ? sketchOfHashes([value]) : emptySketch();
}

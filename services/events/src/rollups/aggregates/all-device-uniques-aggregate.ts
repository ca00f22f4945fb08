import {
  decodeSketch,
  emptySketch,
  encodeSketch,
  mergeSketches,
  type DistinctSketch,
} from '../../sketches/distinct-sketch';
import type { Aggregate, PerDevice } from './aggregate';
import { sketchOfVisitor, uniquesAggregate } from './uniques-aggregate';

/**
 * Distinct visitors over every device together, in the side field `v`: what a report without a
 * device filter (most of them) reads instead of the three per-device sketches of `u`, so it
 * reads and merges one sketch per entry, not three (a third of the bytes once sketches are
 * dense). Built from the same visitor rows and merged the same way; reports with a device
 * filter read `u`. Never a report answer of its own: the `uniques` aggregate answers.
 */
export const allDeviceUniquesAggregate: Aggregate<DistinctSketch, undefined> = {
  empty: emptySketch,
  add: uniquesAggregate.add,
  merge: mergeSketches,
  stored: 'side',
  sideField: 'v',
  devicesFolded: true,
  encode: (states) => encodeSketch(mergeSketches(mergeSketches(states[0], states[1]), states[2])),
  decode: (stored) => [decodeSketch(stored), emptySketch(), emptySketch()] as PerDevice<DistinctSketch>,
  groupKey: () => ({ v: '$visitor' }),
  group: () => ({}),
  fromGroup: (row) => sketchOfVisitor((row._id as { v?: unknown }).v),
  answer: () => undefined,
  answerField: 'uniquesAllDevices',
  asked: (ask) => ask.uniques && ask.allDevices,
  reportGroup: () => ({}),
  fromReportGroup: () => undefined,
};

import { readSample } from './visitor-sample-codec';
import { mergeSampleInto } from './visitor-sample-merge';
import { cloneSample, emptySample, ensureCapacity, VISITOR_SAMPLE, type VisitorSample } from './visitor-sample-model';
import { writeNew } from './visitor-slots';

/*
 * Reach, frequency and on-target reach of a rollup cell: its visitors with their event counts and
 * countries, exact up to K = 4,096 visitors, beyond a bottom-K sample by visitor hash that merges
 * exactly (visitor-sample-merge.ts proves it). Pure: no I/O. docs/sketch-format.md, "Visitor
 * sample", has the model, the estimators and the stored form.
 */

// One import path for the whole API.
export { VISITOR_SAMPLE, emptySample, type VisitorSample } from './visitor-sample-model';
export { addVisitor, mergeSampleInto } from './visitor-sample-merge';
export { decodeSample, encodeSample, encodeSampleWithoutHashes, needsKnownHashes } from './visitor-sample-codec';
export { SampleFormatError } from './visitor-sample-varint';
export {
  FREQUENCY_BINS,
  frequencyOf,
  onTargetEventsOf,
  onTargetReachOf,
  reachOf,
  type Estimate,
  type FrequencyAnswer,
  type FrequencyBin,
  type OnTargetAnswer,
} from './visitor-sample-estimate';

/** Pure: a new sample, never mutates a or b. */
export function mergeSamples(a: VisitorSample, b: VisitorSample): VisitorSample {
  const [big, small] = a.size >= b.size ? [a, b] : [b, a];
  return mergeSampleInto(cloneSample(big, Math.min(VISITOR_SAMPLE.k, big.size + small.size)), small);
}

/** Approximate heap bytes (for a report's memory bound): 21 bytes a visitor of room, plus the objects. */
export function sampleBytes(s: VisitorSample): number {
  return 400 + s.hashes.length * 21;
}

/** Read into once per stored part merged: decoded into this, never handed out. */
let scratch: VisitorSample | null = null;

/**
 * Merges a stored sample (as encodeSample wrote it) into `target`, the caller's own, without a
 * decoded sample of its own: the stored visitors are read into one reused scratch sample. Checked
 * like decodeSample; a damaged value throws SampleFormatError before target changes.
 */
export function mergeStoredSampleInto(target: VisitorSample, bytes: Uint8Array): VisitorSample {
  scratch ??= emptySample();
  return mergeSampleInto(target, readSample(bytes, scratch));
}

/**
 * A sample of one visitor with one country or none, as a rollup builder's entry holds it while
 * nothing else is merged into it: about 60 bytes of heap where a sample's object and four arrays
 * hold about 470 (a builder's unit holds a sample per page entry, most of one visitor).
 */
export class OneVisitor {
  constructor(
    readonly hash: number,
    readonly count: number,
    /** Its country code (visitor-sample-model.ts), 0 for none. */
    readonly country: number,
  ) {}
}

/** `s` as a OneVisitor, or undefined when it is not one visitor of at most one country. */
export function oneVisitorOf(s: VisitorSample): OneVisitor | undefined {
  if (s.size !== 1 || s.sampled || s.more[0] !== 0 || s.countries[1] !== 0 || s.events !== s.counts[0])
    return undefined;
  return new OneVisitor(s.hashes[0]!, s.counts[0]!, s.countries[0]!);
}

/** The sample a OneVisitor stands for, owned by the caller, with room for one more visitor (what is merged into it next). */
export function sampleOfOne(one: OneVisitor): VisitorSample {
  const s = emptySample();
  ensureCapacity(s, 2);
  writeNew(s, 0, one.hash, one.count, one.country);
  s.size = 1;
  s.events = one.count;
  return s;
}

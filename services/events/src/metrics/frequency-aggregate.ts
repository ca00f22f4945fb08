import type { Document } from 'mongodb';
import {
  addVisitor,
  decodeSample,
  emptySample,
  encodeSample,
  encodeSampleWithoutHashes,
  needsKnownHashes,
  frequencyOf,
  mergeSampleInto,
  mergeSamples,
  oneVisitorOf,
  sampleOfOne,
  SampleFormatError,
  sampleBytes,
  OneVisitor,
  VISITOR_SAMPLE,
  type VisitorSample,
} from '../sketches/visitor-sample';
import { countryCode } from '../sketches/visitor-sample-model';
import type { DistinctSketch } from '../sketches/distinct-sketch';
import { StoredFormatError } from './byte-codec';
import type { Aggregate, ParsedMetric } from './aggregate';
import { isVisitorHash } from './uniques-aggregate';

/**
 * How often visitors were reached: each visitor of a cell with its events and countries, exact up
 * to 4,096 visitors and a bottom-K sample by hash beyond (sketches/visitor-sample.ts), so hours
 * merge into days and blocks and a campaign's pages into one answer. Kept only over every device
 * and only in the pages family (what a campaign reads). Answers `frequency`: `frequency_avg`
 * (events per visitor), `reach_1`, `reach_2`, `reach_3`, `reach_5`, `reach_10` (visitors reached
 * at least that often), `frequency_exact` and, when estimated, `frequency_error` (the relative
 * standard error of the reach). The campaign scorecard reads its on-target reach too.
 */
export const frequencyAggregate: Aggregate<VisitorSample> = {
  column: 'r',
  storage: 'folded',
  families: ['p'],
  empty: emptySample,
  isEmpty: (s) => s.size === 0 && s.events === 0,
  // events without a visitor (stored before visitors were recorded) are not in the sample
  add: (state, event) =>
    isVisitorHash(event.visitor)
      ? addVisitor(mergeSamples(state, emptySample()), event.visitor, 1, event.country ?? null)
      : state,
  merge: mergeSamples,
  mergeInto: mergeSampleInto,
  own: (s) => mergeSampleInto(emptySample(), s),
  compact: oneVisitorOf,
  expand: (one) => sampleOfOne(one as OneVisitor),
  compactOfRow: oneVisitorOfRow,
  // the visitor and its country split the rows (both already split an hour's rows), with their events
  rowKey: () => ({ v: '$visitor', fc: { $ifNull: ['$country', ''] } }),
  rowGroup: () => ({ fe: { $sum: 1 } }),
  fromRow: sampleOfRow,
  // in the pages family an exact sample's visitors are the entry's exact visitor set, stored in `u`
  write: (w, s, visitors) => w.blob(sameVisitors(s, visitors) ? encodeSampleWithoutHashes(s) : encodeSample(s)),
  read: (r, visitors) => {
    try {
      const bytes = r.blob();
      if (!needsKnownHashes(bytes)) return decodeSample(bytes);
      const sketch = visitors as DistinctSketch | undefined;
      if (sketch?.kind !== 'exact')
        throw new SampleFormatError("a visitor sample without its hashes lacks its entry's exact visitors");
      return decodeSample(bytes, sketch.hashes);
    } catch (err) {
      if (err instanceof SampleFormatError) throw new StoredFormatError(err.message);
      throw err;
    }
  },
  // a sample is one length-prefixed blob: stepping over it reads its length only
  skip: (r) => void r.blob(),
  basis: 'uniques',
  asked: (ask) => ask.metrics.has('r'),
  parseMetric: (name) => (name === 'frequency' ? ({ metric: 'frequency' } satisfies ParsedMetric) : undefined),
  bytes: sampleBytes,
  fields: (state, _metric, row) => {
    const answer = frequencyOf(state);
    row.frequency_avg = answer.averageFrequency;
    for (const [times, visitors] of Object.entries(answer.atLeast)) row[`reach_${times}`] = visitors;
    row.frequency_exact = answer.exact;
    if (!answer.exact) row.frequency_error = answer.relativeError.reach;
  },
  rank: (state) => frequencyOf(state).averageFrequency,
};

/** Whether an unsampled sample holds exactly the visitors of an exact visitor sketch (the entry's `u`). */
function sameVisitors(s: VisitorSample, visitors: unknown): boolean {
  const sketch = visitors as DistinctSketch | undefined;
  if (s.sampled || sketch?.kind !== 'exact' || sketch.hashes.length !== s.size || s.size === 0) return false;
  for (let i = 0; i < s.size; i++) if (s.hashes[i] !== sketch.hashes[i]) return false;
  return true;
}

/** One `$group` row: its visitor with its events and country (a row without a visitor: nothing). */
/**
 * What `oneVisitorOf(sampleOfRow(row))` gives, without the sample: a row of a visitor's events in
 * at most one country (every row: the visitor and the country are part of its key). Anything a
 * sample would refuse or count otherwise is left to `sampleOfRow`.
 */
function oneVisitorOfRow(row: Document): OneVisitor | undefined {
  const id = row._id as Document;
  const events = row.fe;
  if (!isVisitorHash(id.v) || !(typeof events === 'number' && Number.isInteger(events))) return undefined;
  if (events < 1 || events > VISITOR_SAMPLE.maxCount) return undefined;
  const country = typeof id.fc === 'string' && /^[A-Z]{2}$/.test(id.fc) ? countryCode(id.fc) : 0;
  return new OneVisitor(id.v, events, country);
}

function sampleOfRow(row: Document): VisitorSample {
  const id = row._id as Document;
  if (!isVisitorHash(id.v)) return emptySample();
  const country = typeof id.fc === 'string' && /^[A-Z]{2}$/.test(id.fc) ? id.fc : null;
  return addVisitor(emptySample(), id.v, Number(row.fe), country);
}

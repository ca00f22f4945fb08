import { DenseQuantileBins } from '../sketches/dense-quantile-bins';
import { PendingQuantiles } from '../sketches/pending-quantiles';
import { QuantileBins } from '../sketches/quantile-bins';
import type { QuantileAnswer } from '../sketches/quantile-query';
import {
  decodeQuantiles,
  emptyQuantiles,
  encodeQuantiles,
  quantileAnswer,
  shareAnswer,
} from '../sketches/quantile-sketch';
import { StoredFormatError } from './byte-codec';
import type { Aggregate, ReportAsk } from './aggregate';
import { parseMeasureMetric, type MeasureMetric } from './measure-metrics';
import { forEachMeasureOfRow, measureCountGroup, measureGroupKey, rowOfEvent } from './measure-rows';
import { ALL, bytesOf, EMPTY, mergeInto, reportMergeInto, sketchOf, type QuantilesState } from './quantile-states';
import { MEASURE_LIST } from './measure-list';

export type { QuantilesState } from './quantile-states';

/** A percentile or a share at or above a threshold of one measure. */
type QuantileMetric = Extract<MeasureMetric, { stat: 'quantile' | 'share' }>;

/**
 * The measures' values per cell as quantile sketches (sketches/quantile-sketch.ts: 1 % relative
 * accuracy, exact below 129, mergeable), read only by reports that ask for a percentile or a
 * share at or above a threshold. Answers `<measure>_p50..p99` and `<measure>_gte_<n>`, each with
 * `<metric>_exact`.
 */
export const quantilesAggregate: Aggregate<QuantilesState, QuantileMetric> = {
  column: 'q',
  storage: 'foldedWithDevices',
  empty: () => EMPTY,
  isEmpty: (s) => s === EMPTY || s.every((b) => !b || b.count === 0),
  add: (state, event) => mergeInto(mergeInto(EMPTY, state), quantilesOfRow(rowOfEvent(event))),
  merge: (a, b) => mergeInto(mergeInto(EMPTY, a), b),
  mergeInto,
  own: (s) => mergeInto(EMPTY, s),
  // a read's groups keep only the measures the report asks a metric of (a view's parts carry
  // engaged time and scroll depth: a p90 of engaged time merges half of them)
  reportMergeInto: (target, part, ask) => reportMergeInto(target, part, askedMeasures(ask)),
  reportOwn: (part, ask) => reportMergeInto(EMPTY, part, askedMeasures(ask)),
  rowKey: measureGroupKey,
  rowGroup: measureCountGroup,
  fromRow: quantilesOfRow,
  // a bit per measure with values, then each one's sketch (quantile-codec.ts) length-prefixed
  write: (w, s) => {
    let mask = 0;
    for (let m = 0; m < MEASURE_LIST.length; m++) if (s[m] && s[m]!.count > 0) mask |= 1 << m;
    w.byte(mask);
    for (let m = 0; m < MEASURE_LIST.length; m++) if (mask & (1 << m)) w.blob(encodeQuantiles(sketchOf(s[m]!)));
  },
  read: (r) => {
    const mask = r.byte();
    if (mask === 0) return EMPTY;
    if (mask >= 1 << MEASURE_LIST.length) throw new StoredFormatError('stored quantiles name an unknown measure');
    const out: QuantilesState = MEASURE_LIST.map(() => null);
    for (let m = 0; m < MEASURE_LIST.length; m++) {
      if (!(mask & (1 << m))) continue;
      // the decoded sketch as it is (sorted arrays, no Map): a merge copies it, never writes it
      try {
        out[m] = decodeQuantiles(r.blob());
      } catch (err) {
        throw err instanceof StoredFormatError ? err : new StoredFormatError(String(err));
      }
    }
    return out;
  },
  asked: (ask) => ask.metrics.has('q'),
  parseMetric: (name) => {
    const m = parseMeasureMetric(name);
    return m && ('error' in m || m.stat === 'quantile' || m.stat === 'share')
      ? (m as QuantileMetric | { error: string })
      : undefined;
  },
  bytes: (s) => {
    let n = 64;
    for (const b of s) if (b) n += bytesOf(b);
    return n;
  },
  // `<metric>_exact` whenever the sketch proves the answer (sketches/quantile-query.ts)
  fields: (state, m, row) => {
    const { value, exact } = answerOf(state, m);
    row[m.metric] = value;
    row[exactField(m)] = exact;
  },
  rank: (state, m) => answerOf(state, m).value,
};

/** A percentile, or the share of events at or above a threshold (null without any), and whether it is exact. */
function answerOf(s: QuantilesState, m: QuantileMetric): QuantileAnswer {
  const source = s[MEASURE_LIST.indexOf(m.measure)];
  // a report group's parts held as they are, or its dense bins, answer a percentile in place
  if ((source instanceof PendingQuantiles || source instanceof DenseQuantileBins) && m.stat === 'quantile')
    return source.quantileAnswer(m.q);
  // a share: a group's dense bins read through their shared view, nothing kept
  const sketch = source instanceof DenseQuantileBins ? source.view() : source ? sketchOf(source) : emptyQuantiles();
  return m.stat === 'quantile' ? quantileAnswer(sketch, m.q) : shareAnswer(sketch, m.threshold);
}

/**
 * `<metric>_exact`, made once per parsed metric (a report's rows all use one): a name built per
 * row is a new string the row's property store must look up in V8's string table first (a
 * seventh of a wide percentile report's time in process).
 */
function exactField(m: QuantileMetric): string {
  let name = EXACT_FIELDS.get(m);
  if (name === undefined) EXACT_FIELDS.set(m, (name = `${m.metric}_exact`));
  return name;
}

const EXACT_FIELDS = new WeakMap<QuantileMetric, string>();

/** The last ask seen and its measures: a read merges its parts for one ask (one comparison a merge). */
let lastAsk: ReportAsk | undefined;
let lastMeasures = ALL;

/** The measures a report asks a percentile or share of, a bit each (every measure without an ask). */
function askedMeasures(ask: ReportAsk | undefined): number {
  if (!ask) return ALL;
  if (ask === lastAsk) return lastMeasures;
  let bits = 0;
  for (const m of (ask.metrics.get('q') ?? []) as readonly QuantileMetric[])
    bits |= 1 << MEASURE_LIST.indexOf(m.measure);
  lastAsk = ask;
  lastMeasures = bits;
  return bits;
}

function quantilesOfRow(row: Parameters<typeof forEachMeasureOfRow>[0]): QuantilesState {
  let out: Array<QuantileBins | null> | undefined;
  forEachMeasureOfRow(row, (i, value, events) => {
    out ??= MEASURE_LIST.map(() => null);
    (out[i] ??= new QuantileBins()).addValue(value, events);
  });
  return out ?? EMPTY;
}

import { StoredFormatError } from './byte-codec';
import { addExact, addProduct, averageOf, exactOf, sumAsJson, type ExactSum } from './exact-sum';
import type { Aggregate } from './aggregate';
import { parseMeasureMetric, type MeasureMetric } from './measure-metrics';
import { forEachMeasureOfRow, measureCountGroup, measureGroupKey, rowOfEvent } from './measure-rows';
import { MEASURE_LIST } from './measure-list';

/**
 * Per measure (MEASURE_NAMES order): how many events carried it and the sum of their values,
 * `[n0, sum0, n1, sum1, n2, sum2]`. Counts are numbers (event counts stay far below 2^53); sums
 * are exact at any size (exact-sum.ts).
 */
export type SumsState = ExactSum[];

const WIDTH = 2 * MEASURE_LIST.length;
/** Shared and frozen: never written (mergeInto copies it first). */
const EMPTY: SumsState = Object.freeze(new Array<number>(WIDTH).fill(0)) as SumsState;

function isEmpty(s: SumsState): boolean {
  if (s === EMPTY) return true;
  for (let i = 0; i < WIDTH; i++) if (s[i] !== 0) return false;
  return true;
}

function mergeInto(target: SumsState, part: SumsState): SumsState {
  if (part === EMPTY) return target;
  const out = target === EMPTY ? new Array<ExactSum>(WIDTH).fill(0) : target;
  for (let i = 0; i < WIDTH; i++) out[i] = addExact(out[i]!, part[i]!);
  return out;
}

/** A sum or an average of one measure. */
type SumMetric = Extract<MeasureMetric, { stat: 'sum' | 'avg' }>;

/**
 * The measures' counts and sums per cell and device (read only by reports that ask for a sum or
 * an average). Answers `<measure>_sum` (0 without events) and `<measure>_avg` (null without).
 */
export const sumsAggregate: Aggregate<SumsState, SumMetric> = {
  column: 's',
  storage: 'perDevice',
  empty: () => EMPTY,
  isEmpty,
  add: (state, event) => mergeInto(state === EMPTY ? EMPTY : [...state], sumsOfRow(rowOfEvent(event))),
  merge: (a, b) => mergeInto(mergeInto(EMPTY, a), b),
  mergeInto,
  own: (s) => (s === EMPTY ? EMPTY : [...s]),
  rowKey: measureGroupKey,
  rowGroup: measureCountGroup,
  fromRow: sumsOfRow,
  // a bit per measure carried (and, three bits up, one per sum past 2^53: stored as its decimal
  // digits), then each one's count and sum
  write: (w, s) => {
    let mask = 0;
    for (let m = 0; m < MEASURE_LIST.length; m++) {
      if (s[2 * m] !== 0) mask |= 1 << m;
      if (typeof s[2 * m + 1] === 'bigint') mask |= 1 << (m + BIG);
    }
    w.byte(mask);
    for (let m = 0; m < MEASURE_LIST.length; m++) {
      if (!(mask & (1 << m))) continue;
      w.uint(Number(s[2 * m]!));
      const sum = s[2 * m + 1]!;
      if (typeof sum === 'bigint') w.string(sum.toString());
      else w.uint(sum);
    }
  },
  read: (r) => {
    const mask = r.byte();
    if (mask === 0) return EMPTY;
    if (mask >= 1 << (2 * MEASURE_LIST.length))
      throw new StoredFormatError('stored measure sums name an unknown measure');
    const out = new Array<ExactSum>(WIDTH).fill(0);
    for (let m = 0; m < MEASURE_LIST.length; m++) {
      if (!(mask & (1 << m))) continue;
      out[2 * m] = r.uint();
      out[2 * m + 1] = mask & (1 << (m + BIG)) ? readBig(r.string()) : r.uint();
    }
    return out;
  },
  asked: (ask) => ask.metrics.has('s'),
  parseMetric: (name) => {
    const m = parseMeasureMetric(name);
    return m && ('error' in m || m.stat === 'sum' || m.stat === 'avg')
      ? (m as SumMetric | { error: string })
      : undefined;
  },
  bytes: () => 80,
  // a sum past 2^53 is answered as its decimal digits (a JSON number would be rounded)
  fields: (state, m, row) => {
    row[m.metric] = sumAsJson(sumAnswer(state, m));
  },
  rank: sumAnswer,
};

/** Where the bits of sums past 2^53 start in the stored mask. */
const BIG = MEASURE_LIST.length;
const DIGITS = /^[1-9]\d{15,39}$/;

function readBig(digits: string): ExactSum {
  if (!DIGITS.test(digits)) throw new StoredFormatError('stored measure sum is not a large integer');
  return exactOf(BigInt(digits));
}

/**
 * The sum (0 without events) or the average over the events that carried the measure (null
 * without: the double nearest the exact quotient, give or take its last bit).
 */
function sumAnswer(s: SumsState, m: SumMetric): ExactSum | null {
  const i = MEASURE_LIST.indexOf(m.measure);
  const events = Number(s[2 * i]!);
  const sum = s[2 * i + 1]!;
  if (m.stat === 'sum') return sum;
  return events === 0 ? null : averageOf(sum, events);
}

/**
 * The pipelines count the events of each distinct value (`$sum: 1`, exact in MongoDB's integers),
 * never sum the values themselves (a `$sum` of doubles rounds past 2^53): the products and sums are
 * made here, exactly.
 */
function sumsOfRow(row: Parameters<typeof forEachMeasureOfRow>[0]): SumsState {
  let out: SumsState | undefined;
  forEachMeasureOfRow(row, (i, value, events) => {
    const sums = (out ??= new Array<ExactSum>(WIDTH).fill(0));
    sums[2 * i] = (sums[2 * i] as number) + events;
    sums[2 * i + 1] = addProduct(sums[2 * i + 1]!, value, events);
  });
  return out ?? EMPTY;
}

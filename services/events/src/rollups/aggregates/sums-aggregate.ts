import { MEASURE_NAMES } from '@cm/contracts';
import type { Aggregate, PerDevice } from './aggregate';
import {
  forEachMeasureOfRow,
  measureCountGroup,
  measureGroupKey,
  measureReportGroup,
  measureReportGroupKey,
  rowOfEvent,
} from './measure-rows';

/**
 * Per measure (MEASURE_NAMES order): how many events carried it and the sum of their values,
 * `[n0, sum0, n1, sum1, n2, sum2]`. Integers: sums and averages are exact (below 2^53).
 */
export type SumsState = readonly number[];

const WIDTH = 2 * MEASURE_NAMES.length;
/** Shared: never written (merge returns a new array). */
const EMPTY: SumsState = Object.freeze(new Array<number>(WIDTH).fill(0));

export function emptySums(): SumsState {
  return EMPTY;
}

export function mergeSums(a: SumsState, b: SumsState): SumsState {
  if (a === EMPTY) return b;
  if (b === EMPTY) return a;
  const out = new Array<number>(WIDTH);
  for (let i = 0; i < WIDTH; i++) out[i] = a[i]! + b[i]!;
  return out;
}

/** How many events carried measure `index` and their sum. */
export function measureSum(state: SumsState, index: number): { events: number; sum: number } {
  return { events: state[2 * index]!, sum: state[2 * index + 1]! };
}

function isEmpty(state: SumsState): boolean {
  return state === EMPTY || state.every((x) => x === 0);
}

/**
 * The measures' counts and sums per cell and device, in the side field `s` (read only by reports
 * that ask for a sum or an average). A device without measures is stored as 0.
 */
export const sumsAggregate: Aggregate<SumsState, SumsState | undefined> = {
  empty: emptySums,
  add: (state, event) => mergeSums(state, sumsOfRow(rowOfEvent(event))),
  merge: mergeSums,
  stored: 'side',
  sideField: 's',
  encode: (states) => states.map((s) => (isEmpty(s) ? 0 : [...s])),
  decode: (stored) => {
    if (!Array.isArray(stored)) return [EMPTY, EMPTY, EMPTY];
    return stored.map((s: unknown) =>
      Array.isArray(s) && s.length === WIDTH ? (s as number[]) : EMPTY,
    ) as PerDevice<SumsState>;
  },
  groupKey: measureGroupKey,
  group: measureCountGroup,
  fromGroup: sumsOfRow,
  answer: (state) => state,
  answerField: 'sums',
  asked: (ask) => ask.sums,
  reportGroup: measureReportGroup,
  reportGroupKey: measureReportGroupKey,
  fromReportGroup: (row, ask) => (ask.sums ? sumsOfRow(row) : undefined),
};

function sumsOfRow(row: Parameters<typeof forEachMeasureOfRow>[0]): SumsState {
  let out: number[] | undefined;
  forEachMeasureOfRow(row, (i, value, events) => {
    const sums = (out ??= new Array<number>(WIDTH).fill(0));
    sums[2 * i] = sums[2 * i]! + events;
    sums[2 * i + 1] = sums[2 * i + 1]! + value * events;
  });
  return out ?? EMPTY;
}

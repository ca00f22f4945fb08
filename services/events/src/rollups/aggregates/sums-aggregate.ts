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
 * An exact integer of any size: a number while it is a safe integer, a bigint beyond (never a
 * bigint at or below 2^53 - 1, so one total has one form and states compare equal). Value sums
 * pass 2^53 after about 9,008 hits at the largest value; numbers keep the common case fast.
 */
export type ExactSum = number | bigint;

/**
 * Per measure (MEASURE_NAMES order): how many events carried it and the sum of their values,
 * `[n0, sum0, n1, sum1, n2, sum2]`. Counts are numbers (event counts stay far below 2^53); sums
 * are exact at any size.
 */
export type SumsState = readonly ExactSum[];

const WIDTH = 2 * MEASURE_NAMES.length;
const LARGEST_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Shared: never written (merge returns a new array). */
const EMPTY: SumsState = Object.freeze(new Array<number>(WIDTH).fill(0));

export function emptySums(): SumsState {
  return EMPTY;
}

function exact(big: bigint): ExactSum {
  return big <= LARGEST_SAFE ? Number(big) : big;
}

/**
 * a + b, exactly. Two safe integers whose double sum is still safe were added exactly (a larger
 * exact sum rounds to 2^53 or more); anything else is added as bigints.
 */
function addExact(a: ExactSum, b: ExactSum): ExactSum {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (sum <= Number.MAX_SAFE_INTEGER) return sum;
  }
  return addBig(a, b);
}

/** sum + value x events as bigints: the product alone is past 2^53. */
function addProduct(sum: ExactSum, value: number, events: number): ExactSum {
  return exact(BigInt(sum) + BigInt(value) * BigInt(events));
}

/** Apart, so that addExact stays small enough to be inlined (measured: as fast as a plain +). */
function addBig(a: ExactSum, b: ExactSum): ExactSum {
  return exact(BigInt(a) + BigInt(b));
}

export function mergeSums(a: SumsState, b: SumsState): SumsState {
  if (a === EMPTY) return b;
  if (b === EMPTY) return a;
  const out = new Array<ExactSum>(WIDTH);
  for (let i = 0; i < WIDTH; i++) out[i] = addExact(a[i]!, b[i]!);
  return out;
}

/** How many events carried measure `index` and their sum. */
export function measureSum(state: SumsState, index: number): { events: number; sum: ExactSum } {
  return { events: Number(state[2 * index]!), sum: state[2 * index + 1]! };
}

/** sum / events as a double: the exact quotient's integer part (at most the largest measure) plus the fraction. */
export function averageOf(sum: ExactSum, events: number): number {
  if (typeof sum === 'number') return sum / events;
  const n = BigInt(events);
  return Number(sum / n) + Number(sum % n) / events;
}

function isEmpty(state: SumsState): boolean {
  return state === EMPTY || state.every((x) => x === 0);
}

const DIGITS = /^(?:0|[1-9]\d{0,39})$/;

/**
 * One stored number: a safe integer, a decimal string (a sum past 2^53), or a larger double that
 * cells written before sums were exact may hold (the value it was rounded to; read as that integer).
 */
function decodeNumber(stored: unknown): ExactSum {
  if (typeof stored === 'number' && Number.isInteger(stored) && stored >= 0) return exact(BigInt(stored));
  if (typeof stored === 'string' && DIGITS.test(stored)) return exact(BigInt(stored));
  throw new Error(
    `a stored measure sum is a non-negative integer or its decimal digits, got ${JSON.stringify(stored)}`,
  );
}

function decodeState(stored: unknown): SumsState {
  if (!Array.isArray(stored) || stored.length !== WIDTH) return EMPTY;
  // cells hold plain safe integers nearly always: kept as read
  for (let i = 0; i < WIDTH; i++) {
    const x: unknown = stored[i];
    if (!(typeof x === 'number' && x >= 0 && x <= Number.MAX_SAFE_INTEGER && Math.floor(x) === x))
      return stored.map(decodeNumber);
  }
  return stored as number[];
}

/**
 * The measures' counts and sums per cell and device, in the side field `s` (read only by reports
 * that ask for a sum or an average). A device without measures is stored as 0, a sum past 2^53 as
 * its decimal digits (a JSON number would be read back rounded).
 */
export const sumsAggregate: Aggregate<SumsState, SumsState | undefined> = {
  empty: emptySums,
  add: (state, event) => mergeSums(state, sumsOfRow(rowOfEvent(event))),
  merge: mergeSums,
  stored: 'side',
  sideField: 's',
  encode: (states) => states.map((s) => (isEmpty(s) ? 0 : s.map((x) => (typeof x === 'bigint' ? x.toString() : x)))),
  decode: (stored) => {
    if (!Array.isArray(stored)) return [EMPTY, EMPTY, EMPTY];
    return stored.map(decodeState) as PerDevice<SumsState>;
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

/**
 * The pipelines count the events of each distinct value (`$sum: 1`, exact in MongoDB's integers),
 * never sum the values themselves (a `$sum` of doubles rounds past 2^53): the products and sums are
 * made here, exactly.
 */
function sumsOfRow(row: Parameters<typeof forEachMeasureOfRow>[0]): SumsState {
  let out: ExactSum[] | undefined;
  forEachMeasureOfRow(row, (i, value, events) => {
    const sums = (out ??= new Array<number>(WIDTH).fill(0));
    // a row's count is a safe integer; value x events is exact while the double product is safe (as in addExact)
    sums[2 * i] = (sums[2 * i] as number) + events;
    const product = value * events;
    sums[2 * i + 1] =
      product <= Number.MAX_SAFE_INTEGER
        ? addExact(sums[2 * i + 1]!, product)
        : addProduct(sums[2 * i + 1]!, value, events);
  });
  return out ?? EMPTY;
}

import { MEASURE_NAMES } from '@cm/contracts';
import {
  addValue,
  decodeQuantiles,
  emptyQuantiles,
  encodeQuantiles,
  mergeAllQuantiles,
  mergeQuantiles,
  quantileBytes,
  quantileCount,
  type QuantileSketch,
} from '../../sketches/quantile-sketch';
import type { Aggregate, PerDevice } from './aggregate';
import {
  forEachMeasureOfRow,
  measureCountGroup,
  measureGroupKey,
  measureReportGroup,
  measureReportGroupKey,
  rowOfEvent,
} from './measure-rows';

/** One quantile sketch per measure (MEASURE_NAMES order). */
export type QuantilesState = readonly QuantileSketch[];

/** Shared: never written (merge returns new arrays). */
const EMPTY: QuantilesState = Object.freeze(MEASURE_NAMES.map(() => emptyQuantiles()));

export function emptyQuantileStates(): QuantilesState {
  return EMPTY;
}

export function mergeQuantileStates(a: QuantilesState, b: QuantilesState): QuantilesState {
  if (a === EMPTY) return b;
  if (b === EMPTY) return a;
  return a.map((s, i) => mergeQuantiles(s, b[i]!));
}

/** All states together, measure by measure, each in one pass (mergeAllQuantiles). */
export function mergeAllQuantileStates(states: readonly QuantilesState[]): QuantilesState {
  const parts = states.filter((s) => s !== EMPTY);
  if (parts.length <= 1) return parts[0] ?? EMPTY;
  return MEASURE_NAMES.map((_, i) => mergeAllQuantiles(parts.map((s) => s[i]!)));
}

/**
 * The selected devices' sketches of the selected measures (indexes into MEASURE_NAMES) of one
 * stored entry, merged; the other measures empty. Only what a report asks for is decoded: the
 * report's hot path, like the visitors' stored-register merge.
 */
export function decodeSelected(
  stored: unknown,
  devices: readonly number[],
  measures: readonly number[],
): QuantilesState {
  if (!Array.isArray(stored)) return EMPTY;
  let out: QuantileSketch[] | undefined;
  for (const m of measures) {
    const parts: QuantileSketch[] = [];
    for (const d of devices) {
      const device: unknown = stored[d];
      const item: unknown = Array.isArray(device) && device.length === MEASURE_NAMES.length ? device[m] : undefined;
      if (typeof item === 'string') parts.push(decodeQuantiles(Buffer.from(item, 'base64url')));
    }
    if (parts.length === 0) continue;
    out ??= MEASURE_NAMES.map(() => emptyQuantiles());
    out[m] = mergeAllQuantiles(parts);
  }
  return out ?? EMPTY;
}

/** Estimated bytes a group holding `state` keeps (the report's memory bound). */
export function quantileStateBytes(state: QuantilesState): number {
  return state === EMPTY ? 0 : state.reduce((n, s) => n + quantileBytes(s), 0);
}

function isEmpty(state: QuantilesState): boolean {
  return state === EMPTY || state.every((s) => quantileCount(s) === 0);
}

/**
 * The measures' values per cell and device as quantile sketches (sketches/quantile-sketch.ts:
 * relative-error, mergeable), in the side field `q`, read only by reports that ask for a
 * percentile or a share at or above a threshold. A device without values is stored as 0, a
 * measure without values as 0, a sketch as base64url of its versioned bytes.
 */
export const quantilesAggregate: Aggregate<QuantilesState, QuantilesState | undefined> = {
  empty: emptyQuantileStates,
  add: (state, event) => mergeQuantileStates(state, quantilesOfRow(rowOfEvent(event))),
  merge: mergeQuantileStates,
  stored: 'side',
  sideField: 'q',
  encode: (states) => states.map((state) => (isEmpty(state) ? 0 : state.map(encodeOne))),
  decode: (stored) => {
    if (!Array.isArray(stored)) return [EMPTY, EMPTY, EMPTY];
    return stored.map(decodeDevice) as PerDevice<QuantilesState>;
  },
  groupKey: measureGroupKey,
  group: measureCountGroup,
  fromGroup: quantilesOfRow,
  answer: (state) => state,
  answerField: 'quantiles',
  asked: (ask) => ask.quantiles,
  reportGroup: measureReportGroup,
  reportGroupKey: measureReportGroupKey,
  fromReportGroup: (row, ask) => (ask.quantiles ? quantilesOfRow(row) : undefined),
};

function encodeOne(sketch: QuantileSketch): string | 0 {
  return quantileCount(sketch) === 0 ? 0 : Buffer.from(encodeQuantiles(sketch)).toString('base64url');
}

/** A stored device: 0 (no values) or one item per measure, 0 or a sketch's base64url. */
function decodeDevice(stored: unknown): QuantilesState {
  if (!Array.isArray(stored) || stored.length !== MEASURE_NAMES.length) return EMPTY;
  return stored.map((item: unknown) =>
    typeof item === 'string' ? decodeQuantiles(Buffer.from(item, 'base64url')) : emptyQuantiles(),
  );
}

function quantilesOfRow(row: Parameters<typeof forEachMeasureOfRow>[0]): QuantilesState {
  let out: QuantileSketch[] | undefined;
  forEachMeasureOfRow(row, (i, value, events) => {
    out ??= MEASURE_NAMES.map(() => emptyQuantiles());
    out[i] = addValue(out[i]!, value, events);
  });
  return out ?? EMPTY;
}

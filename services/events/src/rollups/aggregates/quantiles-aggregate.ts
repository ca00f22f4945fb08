import { MEASURE_NAMES } from '@cm/contracts';
import {
  addValue,
  addStoredQuantiles,
  decodeQuantiles,
  emptyQuantiles,
  encodeQuantiles,
  mergeQuantiles,
  QuantileMerger,
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

/**
 * One stored cell entry's sketches as they were read (the per-device arrays of `q`), with the
 * devices and measures the report selects: decoded only when its group is merged
 * (mergeAllQuantileParts), straight into the group's sketch, so a report makes no sketch per
 * entry and device.
 */
class StoredQuantiles {
  constructor(
    readonly stored: readonly unknown[],
    readonly devices: readonly number[],
    readonly measures: readonly number[],
  ) {}
}

/** What a report group collects: decoded states (raw parts) and stored entries (rollup cells). */
export type QuantileParts = QuantilesState | StoredQuantiles;

/** The selected devices and measures of one stored entry (the report's hot path: nothing decoded yet). */
export function storedQuantiles(
  stored: unknown,
  devices: readonly number[],
  measures: readonly number[],
): QuantileParts {
  return Array.isArray(stored) ? new StoredQuantiles(stored, devices, measures) : EMPTY;
}

/** Reused by mergeAllQuantileParts, which always leaves it empty (also when a stored part is damaged). */
const MERGER = new QuantileMerger();
/** Stored text is decoded into this buffer (sketches are at most about 13 KB); larger ones get their own. */
const TEXT_BYTES = Buffer.allocUnsafe(16 * 1024);

/** All parts together, measure by measure, each in one pass: one new sketch per measure. */
export function mergeAllQuantileParts(parts: readonly QuantileParts[]): QuantilesState {
  if (parts.length === 1 && !(parts[0] instanceof StoredQuantiles)) return parts[0]!;
  let out: QuantileSketch[] | undefined;
  try {
    for (let m = 0; m < MEASURE_NAMES.length; m++) {
      for (const part of parts) {
        if (part instanceof StoredQuantiles) addStoredParts(part, m);
        else if (part !== EMPTY) MERGER.add(part[m]!);
      }
      const merged = MERGER.take();
      if (quantileCount(merged) === 0) continue;
      out ??= MEASURE_NAMES.map(() => emptyQuantiles());
      out[m] = merged;
    }
  } catch (error) {
    MERGER.clear();
    throw error;
  }
  return out ?? EMPTY;
}

function addStoredParts(part: StoredQuantiles, measure: number): void {
  if (!part.measures.includes(measure)) return;
  for (const d of part.devices) {
    const device: unknown = part.stored[d];
    const item: unknown = Array.isArray(device) && device.length === MEASURE_NAMES.length ? device[measure] : undefined;
    if (typeof item !== 'string') continue;
    if (item.length > (TEXT_BYTES.length * 4) / 3) {
      const bytes = Buffer.from(item, 'base64url');
      addStoredQuantiles(MERGER, bytes, bytes.length);
    } else addStoredQuantiles(MERGER, TEXT_BYTES, TEXT_BYTES.write(item, 0, 'base64url'));
  }
}

/** Estimated bytes a group holding `state` keeps (the report's memory bound). */
export function quantilePartsBytes(part: QuantileParts): number {
  if (part instanceof StoredQuantiles) return storedBytes(part);
  return part === EMPTY ? 0 : part.reduce((n, s) => n + quantileBytes(s), 0);
}

/** The stored text a part keeps alive (every measure of its selected devices) and its object. */
function storedBytes(part: StoredQuantiles): number {
  let n = 64;
  for (const d of part.devices) {
    const device: unknown = part.stored[d];
    if (Array.isArray(device)) for (const item of device) if (typeof item === 'string') n += item.length;
  }
  return n;
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

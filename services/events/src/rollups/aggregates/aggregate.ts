import type { Document } from 'mongodb';
import type { Measures } from '@cm/contracts';

/**
 * A mergeable aggregate kept per cell and device: cells of hours merge into days, days into
 * blocks, and a report merges cells and raw parts in whatever order they stream in, so `merge`
 * must be associative and commutative with `empty()` neutral (aggregate-laws.test.ts checks each
 * registered aggregate, and that `add` over raw events agrees with the merge).
 *
 * Everything the cell code knows of an aggregate is here: the cell table, the stored cell
 * (cell-document.ts), the hour pipeline and the cell reader iterate the registry
 * (cell-aggregates.ts) and never name one.
 */
export interface Aggregate<S, A = unknown> {
  /** The state of no events. */
  empty(): S;
  /** The state with one more raw event (the reference the pipelines' `$group` is tested against). */
  add(state: S, event: RawEvent): S;
  /** The state of two disjoint sets of events together. */
  merge(a: S, b: S): S;
  /**
   * Where the stored cell keeps it: `entry` inside each entry of `e` (after the entry's keys, in
   * registry order), `side` in a document field of its own (`sideField`), parallel to `e`, which
   * a report reads only when it asks for what the aggregate answers.
   */
  readonly stored: 'entry' | 'side';
  /**
   * Stored with the devices together: `encode` keeps the union of the three states and `decode`
   * gives it in the first slot, so only a report over every device can use it (a smaller read
   * than three states); the laws test compares it folded over the devices.
   */
  readonly devicesFolded?: boolean;
  /** The document field of a `side` aggregate (one field per side aggregate). */
  readonly sideField?: SideField;
  /** The JSON value stored for one entry's states (per device); must stay readable by `decode` forever. */
  encode(states: PerDevice<S>): unknown;
  /** The states of one stored entry; a value written before this aggregate existed (undefined) is empty. */
  decode(stored: unknown): PerDevice<S>;
  /** The hour pipeline's `$group` accumulators it needs (output field -> expression), over one bucket's events. */
  group(): Document;
  /**
   * Fields it adds to the `_id` of the hour pipeline's `$group` (a distinct count groups by the
   * visitor too: one row per visitor, folded into the cell by merge); none for most.
   */
  groupKey?(): Document;
  /** Its state from one output row of that `$group`. */
  fromGroup(row: Document): S;
  /** What a report row shows of a state; `metadataKeys` are the report's (stored, escaped) metadata keys. */
  answer(state: S, metadataKeys: readonly string[]): A;
  /** The field of a report group (GroupCount) that holds the answer. */
  readonly answerField: string;
  /**
   * The report's raw pipeline (read/count-pipeline.ts): its `$group` accumulators (output field
   * -> expression; none when the report does not ask for it), what it adds to the `$group` `_id`,
   * and its answer from an output row (undefined: not asked for).
   * Output names are fixed or positional: a caller's key never becomes a field name.
   */
  reportGroup(ask: ReportAsk): Document;
  /** Whether a report with this ask needs its answer (a side field is read only then). */
  asked(ask: ReportAsk): boolean;
  reportGroupKey?(ask: ReportAsk): Document;
  fromReportGroup(row: Document, ask: ReportAsk): A;
}

/** What a report asks of the aggregates: the stored (escaped) metadata keys and its metrics. */
export interface ReportAsk {
  metadataKeys: readonly string[];
  /** Distinct visitors per row (the `uniques` metric). */
  uniques: boolean;
  /** No device filter (or all three devices): aggregates stored with the devices folded together can answer. */
  allDevices: boolean;
  /** Sums (and counts) of the measures: a `_sum` or `_avg` metric. */
  sums: boolean;
  /** Quantile sketches of the measures: a percentile or a share at or above a threshold. */
  quantiles: boolean;
}

/**
 * The document fields of side aggregates: `l` the latest events, `u` the distinct-visitor
 * sketches per device, `v` the same over all devices together, `s` the measures' sums, `q` the
 * measures' quantile sketches.
 */
export type SideField = 'l' | 'u' | 'v' | 's' | 'q';
export const SIDE_FIELDS: readonly SideField[] = ['l', 'u', 'v', 's', 'q'];

/** A raw event as the day bucket holds it: what `add` reads. */
export interface RawEvent {
  _id: string;
  created: Date;
  metadata?: Record<string, unknown>;
  /** The visitor hash (an integer below 2^52); absent on events stored before visitors were recorded. */
  visitor?: number;
  /** The numbers the hit carried (engaged time, scroll depth, value); absent when it carried none. */
  measures?: Measures;
}

/** One state per device, in DEVICE_ORDER. */
export type PerDevice<S> = [S, S, S];

/** The state of the selected devices together (`devices` indexes into DEVICE_ORDER). */
export function foldDevices<S>(
  aggregate: Aggregate<S, unknown>,
  states: Readonly<PerDevice<S>>,
  devices: readonly number[],
): S {
  let state = aggregate.empty();
  for (const d of devices) state = aggregate.merge(state, states[d]!);
  return state;
}

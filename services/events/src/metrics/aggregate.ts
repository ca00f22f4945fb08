import type { Document } from 'mongodb';
import type { Measures } from '@cm/contracts';
import type { ByteReader, ByteWriter } from './byte-codec';

/**
 * A mergeable aggregate of events, one file each, owning both of its halves:
 *
 * - **build**: its state, kept per device in every rollup cell; its share of the pipelines'
 *   `$group` (hours built from raw events, a report's raw parts), its state from one output row,
 *   the pure `merge` and the in-place `mergeInto` of the builder's and the report's hot paths, and
 *   its stored binary form;
 * - **report**: whether a report needs it (its side of the read plan: a stored column is read
 *   only then), the metric names it answers, and the row fields of a group's merged state.
 *
 * Cells of hours merge into days and blocks and a report merges cells and raw rows in any order,
 * so `merge` must be associative and commutative with `empty()` neutral (aggregate-laws.test.ts
 * checks each registered aggregate, and that `add` over raw events agrees with the rows).
 * Nothing else in the code names an aggregate: the cell table, the stored cells, the pipelines,
 * the cell reader, the group merge and the rows iterate the registry (registry.ts).
 */
export interface Aggregate<S, M extends ParsedMetric = ParsedMetric> {
  /** Its column in a stored cell page: stable forever (a rename would lose stored cells). */
  readonly column: string;
  /**
   * How its per-device states are stored: `perDevice` one per device present in the entry (small
   * states); `folded` only their union (answers reports over every device only);
   * `foldedWithDevices` the union in `column` and, for entries with more than one device, each
   * device's state in `column + 'd'`: a report over every device (most) reads only the union.
   */
  readonly storage: 'perDevice' | 'folded' | 'foldedWithDevices';
  /**
   * The rollup families (rollups/families.ts) whose cells keep it; every family when absent. A
   * report that asks for it reads a family that keeps it, or raw events.
   */
  readonly families?: readonly string[];
  /** The state of no events; may be a shared frozen value (never written in place). */
  empty(): S;
  isEmpty(state: S): boolean;
  /** The state with one more raw event (the reference the pipelines' `$group` is tested against). */
  add(state: S, event: RawEvent): S;
  /** The state of two disjoint sets of events together; never mutates its arguments. */
  merge(a: S, b: S): S;
  /**
   * `part` merged into `target`, which the caller owns (made by `own` or `mergeInto`): may mutate
   * and return it. The builder's and the report's hot path: no copy per row or entry.
   */
  mergeInto(target: S, part: S): S;
  /** A state the caller owns and may merge into, equal to `part` (which may be shared). */
  own(part: S): S;
  /**
   * A report group's `own` and `mergeInto`, for an aggregate whose state merges faster in a form
   * a builder's cells cannot afford (quantiles: a dense array per measure, where a builder's flood
   * of distinct cells keeps sparse bins): parts of any origin merge into it, and it answers like
   * any state (fields, rank, bytes, write, merge). Never handed to a builder. Absent: `own` and
   * `mergeInto` (reportOwn and reportMergeInto in registry.ts pick). `ask`: the report's, when a
   * read merges its parts: what the report does not ask for may be left out of the group's state
   * (quantiles: the measures it asks no metric of); absent, nothing is left out.
   */
  reportOwn?(part: S, ask?: ReportAsk): S;
  reportMergeInto?(target: S, part: S, ask?: ReportAsk): S;
  /**
   * Its states are numbers whose merge is their sum, with no bytes of their own (the count): a
   * report's merge adds them inline, with none of the calls a state of any form needs, in every
   * report and every entry.
   */
  additive?: true;
  /**
   * A smaller form of `state` for a rollup builder's entry to hold while nothing else is merged
   * into it (most entries of a unit hold one row's state: a flood of distinct urls is all such
   * entries), or undefined when it has none. Shares nothing mutable with `state`; never empty.
   */
  compact?(state: S): unknown;
  /** The state a `compact` form stands for, owned by the caller. */
  expand?(compact: unknown): S;
  /**
   * `compact(fromRow(row))` made without the state, for the builder's hot loop (a row is mostly
   * one event, and its state mostly lands in entries that hold nothing yet); undefined when that
   * state is empty or has no compact form (the caller then reads `fromRow`). Never shares
   * anything mutable: the same form may be held by an entry of every family.
   */
  compactOfRow?(row: Document): unknown;

  /** Fields it adds to the `_id` of the pipelines' `$group` (the visitor, measure values); none for most. */
  rowKey?(): Document;
  /** Its `$group` accumulators (output field -> portable expression). */
  rowGroup(): Document;
  /** Its state from one output row of that `$group` (one device). */
  fromRow(row: Document): S;
  /**
   * A report's raw pipeline, where it differs from the hour pipeline's (`rowKey`, `rowGroup`,
   * `fromRow`, used when these are absent): e.g. the latest event with only the asked keys.
   */
  reportRowKey?(ask: ReportAsk): Document;
  reportRowGroup?(ask: ReportAsk): Document;
  fromReportRow?(row: Document, ask: ReportAsk): S;

  /**
   * Another aggregate (by its registry name) of the same entry whose union over the entry's devices
   * this one's stored form may lean on, to leave out what that one stores already: `write` and
   * `read` are given it (undefined in a family that does not keep it). The visitor sample's exact
   * visitors are the visitor sketch's.
   */
  readonly basis?: string;
  /** `basis`: the union of the basis aggregate's states of the entry, when it declares one. */
  write(w: ByteWriter, state: S, basis?: unknown): void;
  /** Reads what `write` wrote (given the same `basis`); StoredFormatError on damaged bytes. */
  read(r: ByteReader, basis?: unknown): S;
  /**
   * Steps over what `write` wrote without decoding it, for large states (a visitor sample): a
   * report reads only the entries its filters keep. Absent: `read` is used, and its result dropped.
   */
  skip?(r: ByteReader): void;
  /**
   * A `foldedWithDevices` aggregate's per-device states of an entry with several devices, when it
   * can store them in fewer bytes than one state each knowing their union (`folded`, read first):
   * e.g. a device mark per visitor of an exact set. Default: `write` per device present.
   */
  writeDevices?(w: ByteWriter, states: Readonly<PerDevice<S>>, mask: number, folded: S): void;
  readDevices?(r: ByteReader, mask: number, folded: S): PerDevice<S>;

  /** Whether a report with this ask needs it (its column is read, its pipeline fields added, only then). */
  asked(ask: ReportAsk): boolean;
  /** The report metrics it answers, parsed from their names (undefined: not one of its metrics). */
  parseMetric?(name: string): M | { error: string } | undefined;
  /** Estimated bytes a report group keeps for this state (the report's memory bound). */
  bytes(state: S): number;
  /** The row fields of one requested metric (`uniques`, `uniques_exact`, ...). */
  fields?(state: S, metric: M, row: Record<string, unknown>): void;
  /** The metric's value for ranking (order_by); null ranks last; a bigint is a sum past 2^53. */
  rank?(state: S, metric: M): number | bigint | null;
}

/** A report metric an aggregate answers, as it parsed it from its name. */
export interface ParsedMetric {
  /** The name as requested (`uniques`, `engaged_ms_p90`, ...): its row field. */
  metric: string;
}

/** What a report asks of the aggregates, derived once from the query (report-ask.ts). */
export interface ReportAsk {
  /** The report's metadata keys as stored (escaped), in the order of the query's keys. */
  metadataKeys: readonly string[];
  /** Per aggregate column: the metrics of the report it answers (absent: none). */
  metrics: ReadonlyMap<string, readonly ParsedMetric[]>;
  /** Indexes into DEVICE_ORDER of the devices the report counts. */
  devices: readonly number[];
  /** Every device: aggregates stored with the devices folded together can answer. */
  allDevices: boolean;
}

/** A raw event as the day bucket holds it: what `add` reads. */
export interface RawEvent {
  _id: string;
  created: Date;
  metadata?: Record<string, unknown>;
  /** The visitor hash (an integer below 2^52); absent on events stored before visitors were recorded. */
  visitor?: number;
  /** The numbers the hit carried (engaged time, scroll depth, value); absent when it carried none. */
  measures?: Measures;
  /** ISO 3166-1 alpha-2; absent when unknown. */
  country?: string;
}

/** One state per device, in DEVICE_ORDER. */
export type PerDevice<S> = [S, S, S];

/** The devices a cell's states are kept for, in their stored order. */
export const DEVICE_ORDER = ['desktop', 'tablet', 'mobile'] as const;

export function deviceIndex(device: unknown): number {
  const i = DEVICE_ORDER.indexOf(device as (typeof DEVICE_ORDER)[number]);
  return i < 0 ? 0 : i;
}
